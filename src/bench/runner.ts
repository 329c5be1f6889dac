/**
 * One rank's whole run, as nccl-tests' TimeTest/BenchTime: rendezvous, connect the data plane,
 * warm up at the largest then the smallest size, then for each size time `iters` back-to-back
 * collectives out of place and in place, average the time over ranks, and with `-c 1` run once
 * more on deterministic data and count wrong elements. Rank 0 gets every row; others get none.
 */
import net from 'node:net';
import os from 'node:os';
import { UsageError } from '../core/errors.js';
import { ELEMENT_BYTES } from './datatypes.js';
import { FaultLatch } from './fault.js';
import type { ControlChannel } from './control.js';
import { ControlServer } from './control-server.js';
import { ControlClient } from './control-client.js';
import { AcceptQueue, Mesh } from './mesh.js';
import { LATER_CELL_SHARE, settle } from './settle.js';
import { allReduceSchedule, COLLECTIVES, hostsCrowded, neededPeers } from './collective.js';
import { algBytes, busbwFactor, collCounts, sweepSizes, usesRedOp, usesRoot } from './sizes.js';
import { countWrong, damageResult, fillForCheck, snapshotResult, type DamageKind } from './check.js';
import { interfaceAddress } from './interfaces.js';
import { createSimdArena, type SimdArena } from './simd-reduce.js';
import type { CollContext } from './coll-context.js';
import type { ProgressMode } from './data-socket.js';
import type { LaunchIdentity } from './launch-env.js';
import type { BenchAlgo, BenchCell, BenchOp, BenchParams, BenchRow, RankInfo } from './types.js';

export interface RankRunOptions {
  params: BenchParams;
  identity: LaunchIdentity;
  ifname?: string;
  /** Bytes per pipelined slice (default 1 MiB). */
  sliceBytes?: number;
  /** How data connections are serviced (default poll; AIFABRIC_BENCH_PROGRESS=events for libuv's callbacks). */
  progress?: ProgressMode;
  /**
   * This rank's host name in the peer list and the header (default os.hostname()); the namespace
   * testbed passes each host's namespace (AIFABRIC_TESTBED_HOST, read at the CLI edge), since every
   * namespace shares the kernel's hostname.
   */
  hostName?: string;
  /** Test hook: this rank damages its result in every check run, as a transport bug would. */
  damage?: { rank: number; kind: DamageKind };
  /** Called on rank 0 once all ranks are known, before any data moves (prints the header). */
  onPeers?: (peers: RankInfo[]) => void;
  /** Called on rank 0 for each finished row (prints it, as nccl-tests streams its table). */
  onRow?: (row: BenchRow) => void;
  /**
   * Collectives to run one after the other on one data plane (default: params.op alone), and how
   * many times to run the whole list (nccl-tests' -N/--run_cycles; 0 = until interrupted, and
   * then no rows are kept, so memory stays flat).
   */
  ops?: readonly BenchOp[];
  cycles?: number;
  /** Called on rank 0 before and after each op's sweep (prints nccl-tests' per-test header and footer). */
  onSweepStart?: (op: BenchOp, cycle: number) => void;
  onSweepEnd?: (op: BenchOp, cycle: number, summary: SweepSummary) => void;
}

export interface SweepSummary {
  outOfBounds: number;
  avgBusbwGBps: number;
}

export interface RankRunResult {
  rank: number;
  size: number;
  peers: RankInfo[];
  rows: BenchRow[];
  /** Cells with any wrong element (nccl-tests' "Out of bounds values"). */
  outOfBounds: number;
  avgBusbwGBps: number;
}

const DEFAULT_SLICE_BYTES = 1 << 20;

export async function runBenchRank(options: RankRunOptions): Promise<RankRunResult> {
  const { params, identity } = options;
  const latch = new FaultLatch();
  const host = options.hostName ?? os.hostname();
  const bindAddress = options.ifname ? interfaceAddress(options.ifname) : undefined;
  const dataServer = net.createServer();
  dataServer.on('error', (error) => latch.trip(`rank ${identity.rank} data listener: ${error.message}`));
  const accepted = new AcceptQueue(dataServer);
  let control: ControlChannel | undefined;
  let mesh: Mesh | undefined;
  try {
    const controlOptions = {
      rank: identity.rank,
      size: identity.size,
      masterAddr: identity.masterAddr,
      masterPort: identity.masterPort,
      timeoutS: params.timeoutS,
      latch,
      host,
      pid: process.pid,
      cores: os.availableParallelism(),
      startDataListener: async (localAddress: string) => {
        const host = bindAddress ?? localAddress;
        await new Promise<void>((resolve, reject) => {
          dataServer.once('error', reject);
          dataServer.listen({ host, port: 0 }, () => resolve());
        });
        const address = dataServer.address() as net.AddressInfo;
        return { addr: host, port: address.port };
      },
    };
    control =
      identity.rank === 0
        ? await ControlServer.open(controlOptions)
        : await ControlClient.open(controlOptions);
    const peers = control.peers;
    checkRoot(params, identity.size, options.ops ?? [params.op]);
    if (identity.rank === 0) options.onPeers?.(peers);

    const ops = options.ops ?? [params.op];
    mesh = new Mesh(identity.rank, peers, params.sockets, latch, params.timeoutS, options.progress ?? 'poll');
    const crowded = hostsCrowded(peers);
    const { sendTo, recvFrom } = unionOfPeers(
      ops,
      identity.rank,
      identity.size,
      params.algo ?? 'auto',
      crowded,
    );
    await mesh.connect(accepted, sendTo, recvFrom, bindAddress);
    await control.allSum([]);

    const buffers = allocate(params);
    const keepRows = (options.cycles ?? 1) > 0;
    const rows: BenchRow[] = [];
    const total = { outOfBounds: 0, busbw: 0, cells: 0 };
    for (let cycle = 0; options.cycles === 0 || cycle < (options.cycles ?? 1); cycle++) {
      for (const op of ops) {
        if (identity.rank === 0) options.onSweepStart?.(op, cycle);
        // Later cycles of -N run on code compiled by the first: no settling again.
        const sweepRows = await sweep(
          options,
          { ...params, op, settleMs: cycle === 0 ? params.settleMs : 0 },
          control,
          mesh,
          buffers,
        );
        const summary = summarise(sweepRows);
        total.outOfBounds += summary.outOfBounds;
        total.busbw += summary.avgBusbwGBps * 2 * sweepRows.length;
        total.cells += 2 * sweepRows.length;
        if (keepRows) rows.push(...sweepRows);
        if (identity.rank === 0) options.onSweepEnd?.(op, cycle, summary);
      }
    }
    mesh.quiesce();
    await control.allSum([]);
    return {
      rank: identity.rank,
      size: identity.size,
      peers,
      rows: identity.rank === 0 ? rows : [],
      outOfBounds: total.outOfBounds,
      avgBusbwGBps: total.cells > 0 ? total.busbw / total.cells : 0,
    };
  } catch (error) {
    // The first fault explains the run; errors it caused downstream would only confuse.
    const first = latch.fault ?? error;
    // Anything else (bad --root, a bug) is told to the other ranks too, so none waits for us.
    if (!latch.fault)
      latch.trip(
        `rank ${identity.rank} (host ${host}) stopped: ${error instanceof Error ? error.message : String(error)}`,
      );
    throw first;
  } finally {
    mesh?.close();
    accepted.destroyWaiting();
    await control?.close().catch(() => undefined);
    dataServer.close();
  }
}

/** Cells with a wrong element, and the mean busbw over cells, as nccl-tests' footer. */
function summarise(rows: BenchRow[]): SweepSummary {
  let outOfBounds = 0;
  let busbwTotal = 0;
  for (const row of rows) {
    for (const cell of [row.outOfPlace, row.inPlace]) {
      if ((cell.wrong ?? 0) > 0) outOfBounds++;
      busbwTotal += cell.busbwGBps;
    }
  }
  return { outOfBounds, avgBusbwGBps: rows.length > 0 ? busbwTotal / (2 * rows.length) : 0 };
}

/** The peers every op of the list needs (the ring's neighbours, everyone for alltoall). */
function unionOfPeers(
  ops: readonly BenchOp[],
  rank: number,
  nranks: number,
  algo: BenchAlgo,
  crowded: boolean,
): { sendTo: number[]; recvFrom: number[] } {
  const sendTo = new Set<number>();
  const recvFrom = new Set<number>();
  for (const op of ops) {
    const needed = neededPeers(op, rank, nranks, algo, crowded);
    for (const peer of needed.sendTo) sendTo.add(peer);
    for (const peer of needed.recvFrom) recvFrom.add(peer);
  }
  return { sendTo: [...sendTo], recvFrom: [...recvFrom] };
}

interface Buffers {
  sendBase: Uint8Array;
  recvBase: Uint8Array;
  work: Uint8Array;
  scratch: Uint8Array;
  /** The WebAssembly memory the four buffers live in, for SIMD reductions (absent: scalar loops). */
  simd: SimdArena | undefined;
  /** Check rounds so far: every round's inputs differ from the previous round's (fill.ts). */
  checkRounds: number;
}

/**
 * Allocated once at the largest size, as nccl-tests does; every size and op uses views of these.
 * They share one WebAssembly memory so that reductions run as SIMD loops over them; receive
 * staging (scratch) gets the largest size plus slack for uneven slices, and grows outside the
 * memory (scalar reductions) only if some schedule ever asks for more.
 */
function allocate(params: BenchParams): Buffers {
  const capacity = Math.max(params.maxBytes, params.minBytes, ELEMENT_BYTES[params.dataType]);
  const aligned = Math.ceil(capacity / 64) * 64;
  const scratchBytes = aligned + 65536;
  const simd = createSimdArena(3 * aligned + scratchBytes);
  if (!simd)
    return {
      sendBase: new Uint8Array(capacity),
      recvBase: new Uint8Array(capacity),
      work: new Uint8Array(capacity),
      scratch: new Uint8Array(0),
      simd,
      checkRounds: 0,
    };
  const region = (index: number, bytes: number): Uint8Array =>
    new Uint8Array(simd.buffer, index * aligned, bytes);
  return {
    sendBase: region(0, capacity),
    recvBase: region(1, capacity),
    work: region(2, capacity),
    scratch: region(3, scratchBytes),
    simd,
    checkRounds: 0,
  };
}

/** Every rank checks --root right after the rendezvous, before any data moves, and stops alike. */
function checkRoot(params: BenchParams, nranks: number, ops: readonly BenchOp[]): void {
  if (ops.some(usesRoot) && params.root >= nranks) {
    throw new UsageError(
      `invalid value for --root: ${params.root} (this job has ${nranks} ranks: 0..${nranks - 1})`,
    );
  }
}

async function sweep(
  options: RankRunOptions,
  params: BenchParams,
  control: ControlChannel,
  mesh: Mesh,
  buffers: Buffers,
): Promise<BenchRow[]> {
  const crowded = hostsCrowded(control.peers);
  const { identity } = options;
  const nranks = identity.size;
  const elementBytes = ELEMENT_BYTES[params.dataType];
  const { sendBase, recvBase, work } = buffers;
  const root = usesRoot(params.op) ? params.root : -1;

  const contextFor = (sizeBytes: number, inPlace: boolean): CollContext => {
    const counts = collCounts(params.op, Math.floor(sizeBytes / elementBytes), nranks);
    const send = inPlace
      ? recvBase.subarray(counts.sendInplaceOffset * identity.rank * elementBytes)
      : sendBase;
    const recv = inPlace
      ? recvBase.subarray(counts.recvInplaceOffset * identity.rank * elementBytes)
      : recvBase;
    return {
      mesh,
      rank: identity.rank,
      nranks,
      dataType: params.dataType,
      redOp: params.redOp,
      root: Math.max(root, 0),
      count: counts.paramCount,
      send,
      recv,
      inPlace,
      work,
      scratch: (bytes) => {
        if (buffers.scratch.byteLength < bytes) buffers.scratch = new Uint8Array(bytes);
        return buffers.scratch;
      },
      simd: buffers.simd,
      sliceBytes: options.sliceBytes ?? DEFAULT_SLICE_BYTES,
      socketsPerPeer: params.sockets,
      algo: allReduceSchedule(params.algo ?? 'auto', nranks, sizeBytes, crowded),
    };
  };
  const run = COLLECTIVES[params.op];
  const sizes = sweepSizes(params.minBytes, params.maxBytes, params.stepFactor);

  for (const warmSize of [sizes[sizes.length - 1] ?? params.maxBytes, sizes[0] ?? params.minBytes]) {
    const ctx = contextFor(warmSize, false);
    for (let i = 0; i < params.warmupIters; i++) await run(ctx);
  }

  const rows: BenchRow[] = [];
  for (const sizeBytes of sizes) {
    const counts = collCounts(params.op, Math.floor(sizeBytes / elementBytes), nranks);
    const cells: BenchCell[] = [];
    for (const inPlace of [false, true]) {
      const ctx = contextFor(sizeBytes, inPlace);
      const settleMs = (params.settleMs ?? 0) * (rows.length === 0 && !inPlace ? 1 : LATER_CELL_SHARE);
      const settled = await settle(
        () => run(ctx),
        async (ms) => ((await control.allSum([ms]))[0] ?? 0) / nranks,
        settleMs,
      );
      await control.allSum([]);
      const start = performance.now();
      for (let i = 0; i < params.iters; i++) await run(ctx);
      const seconds = (performance.now() - start) / 1000 / Math.max(1, params.iters);
      const [timeSum = 0] = await control.allSum([seconds]);
      const avgSeconds = timeSum / nranks;
      let wrong: number | null = null;
      if (params.check) {
        const seed = ++buffers.checkRounds;
        const damage = options.damage?.rank === identity.rank ? options.damage.kind : undefined;
        let previous = damage === 'stale' ? snapshotResult(params.op, ctx) : undefined;
        fillForCheck(params.op, ctx, recvBase, seed);
        if (damage === 'unwritten') previous = snapshotResult(params.op, ctx);
        await control.allSum([]);
        await run(ctx);
        if (damage) damageResult(params.op, ctx, damage, previous);
        const [wrongSum = 0] = await control.allSum([countWrong(params.op, ctx, seed)]);
        wrong = wrongSum;
      }
      const algbw =
        avgSeconds > 0 ? algBytes(params.op, counts.paramCount, elementBytes, nranks) / 1e9 / avgSeconds : 0;
      cells.push({
        timeUs: avgSeconds * 1e6,
        algbwGBps: algbw,
        busbwGBps: algbw * busbwFactor(params.op, nranks),
        wrong,
        settleIterations: settled.iterations,
      });
    }
    const row: BenchRow = {
      op: params.op,
      sizeBytes: Math.max(counts.sendCount, counts.recvCount) * elementBytes,
      count: counts.paramCount,
      type: params.dataType,
      redop: usesRedOp(params.op) ? params.redOp : 'none',
      root,
      outOfPlace: cells[0]!,
      inPlace: cells[1]!,
    };
    rows.push(row);
    if (identity.rank === 0) options.onRow?.(row);
  }
  return rows;
}
