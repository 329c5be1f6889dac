/**
 * A synthetic multi-rank training run with known delays, for the trace engine's tests (issue 12:
 * "rank r late by d us at collective k", recovered within 1 us). One global timeline: each rank runs
 * compute kernels, a launch gap, then the collective; every rank's collective ends together, at the
 * last start plus the true time (nobody finishes before the last data arrives), and the next segment
 * starts there. A `compute` delay lengthens the rank's last compute kernel before collective k; a
 * `collective` delay lengthens its launch gap (compute ends on time, the collective starts late).
 * Host h's clock reads global time plus clockOffsetsUs[h].
 *
 * Two outputs: TraceRankFacts directly, and Kineto JSON in the Chrome-trace layout PyTorch writes
 * (`traceEvents` of `ph: "X"`, `cat: "kernel"`, NCCL kernel names and the comms args of recent
 * PyTorch: `Collective name`, `In msg nelems`, `Group size`, `Process Group Name`, `distributedInfo`),
 * as in AMD-AGI/TraceLens@171dd74 tests/traces/b200/eager_trace.json.gz.
 */
import type { TraceCollective, TraceRankFacts } from '../../src/parse/trace-types.js';

export interface GenDelay {
  rank: number;
  /** Global collective index from 0, counted across steps. */
  collective: number;
  us: number;
  where: 'compute' | 'collective';
}

export interface GenCollective {
  op: 'all_reduce' | 'all_gather' | 'reduce_scatter' | 'broadcast';
  sizeBytes: number;
}

export interface GenOptions {
  ranks: number;
  /** Hosts, ranks spread over them in contiguous blocks (default 1). */
  hosts?: number;
  /** Per host: what its clock reads minus global time (default 0). */
  clockOffsetsUs?: number[];
  /** Host names (default host0, host1...); null writes no host. */
  hostNames?: (string | null)[];
  steps?: number;
  /** Number of the first ProfilerStep (default 1). */
  firstStep?: number;
  collectivesPerStep?: number;
  /** Compute kernels before each collective, back to back with 1 us between (default 2). */
  computeKernels?: number;
  computeUs?: number;
  /** Launch gap between the last compute kernel and the collective (default 5 us). */
  gapUs?: number;
  /** The collective's own time (default 50 us). */
  collectiveUs?: number;
  /** Cycled over the collectives (default all_reduce of 1 MiB). */
  ops?: GenCollective[];
  delays?: GenDelay[];
  /** Deterministic launch jitter up to this many us (default 0). */
  jitterUs?: number;
  /** Global start of the run (us). */
  startUs?: number;
  group?: string;
}

export interface GenRank {
  facts: TraceRankFacts;
  /** The rank's Kineto trace, as JSON text. */
  kineto: string;
}

const NCCL_KERNEL: Record<GenCollective['op'], string> = {
  all_reduce: 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
  all_gather: 'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
  reduce_scatter: 'ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
  broadcast: 'ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
};
/** PyTorch's `Collective name` for each op (c10d's record_param_comms names). */
const COLLECTIVE_NAME: Record<GenCollective['op'], string> = {
  all_reduce: 'allreduce',
  all_gather: '_allgather_base',
  reduce_scatter: '_reduce_scatter_base',
  broadcast: 'broadcast',
};
const COMPUTE_KERNEL =
  'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)';

interface Event {
  ph: 'X';
  cat: string;
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur: number;
  args: Record<string, unknown>;
}

export function hostOfRank(rank: number, ranks: number, hosts: number): number {
  return Math.floor((rank * hosts) / ranks);
}

/** Jitter in [0, jitterUs): a fixed pattern, so runs are identical. */
function jitter(rank: number, k: number, jitterUs: number): number {
  return jitterUs === 0 ? 0 : (((rank * 37 + k * 11) % 10) / 10) * jitterUs;
}

export function generateRun(options: GenOptions): GenRank[] {
  const n = options.ranks;
  const hosts = options.hosts ?? 1;
  const steps = options.steps ?? 1;
  const firstStep = options.firstStep ?? 1;
  const perStep = options.collectivesPerStep ?? 3;
  const kernels = options.computeKernels ?? 2;
  const computeUs = options.computeUs ?? 100;
  const gapUs = options.gapUs ?? 5;
  const collUs = options.collectiveUs ?? 50;
  const ops = options.ops ?? [{ op: 'all_reduce', sizeBytes: 1 << 20 }];
  const delays = options.delays ?? [];
  const group = options.group ?? '0';
  const groupRanks = Array.from({ length: n }, (_, i) => i);
  const offset = (r: number): number => options.clockOffsetsUs?.[hostOfRank(r, n, hosts)] ?? 0;
  const hostName = (r: number): string | null => {
    const h = hostOfRank(r, n, hosts);
    return options.hostNames ? (options.hostNames[h] ?? null) : `host${h}`;
  };
  const facts: TraceRankFacts[] = groupRanks.map((r) => ({
    format: 'kineto',
    file: `rank${r}.json`,
    rank: r,
    rankSource: 'distributedInfo',
    worldSize: n,
    host: hostName(r),
    device: 'NVIDIA H100 80GB HBM3',
    hasGpu: true,
    ncclVersion: '2.21.5',
    collectives: [],
    steps: [],
    computeBusy: [],
    counts: { events: 0, kernels: 0, ncclKernels: 0 },
  }));
  const events: Event[][] = groupRanks.map(() => []);
  const delayOf = (r: number, k: number, where: GenDelay['where']): number =>
    delays
      .filter((d) => d.rank === r && d.collective === k && d.where === where)
      .reduce((a, d) => a + d.us, 0);

  let t = options.startUs ?? 1_000_000;
  let k = 0;
  for (let s = 0; s < steps; s++) {
    const step = firstStep + s;
    const stepStart = t;
    for (let j = 0; j < perStep; j++, k++) {
      const spec = ops[k % ops.length]!;
      const starts: number[] = [];
      for (let r = 0; r < n; r++) {
        let rt = t;
        for (let q = 0; q < kernels; q++) {
          const dur = computeUs + (q === kernels - 1 ? delayOf(r, k, 'compute') : 0);
          addCompute(facts[r]!, events[r]!, rt + offset(r), dur);
          rt += dur + (q === kernels - 1 ? 0 : 1);
        }
        starts.push(rt + gapUs + delayOf(r, k, 'collective') + jitter(r, k, options.jitterUs ?? 0));
      }
      const end = Math.max(...starts) + collUs;
      for (let r = 0; r < n; r++) {
        const start = starts[r]! + offset(r);
        const c: TraceCollective = {
          seq: k,
          group,
          groupDesc: 'default_pg',
          groupRanks,
          groupSize: n,
          op: spec.op,
          name: NCCL_KERNEL[spec.op],
          startUs: start,
          durUs: end - starts[r]!,
          sizeBytes: spec.sizeBytes,
          dtype: 'Float',
          algo: 'RING',
          proto: 'LL',
          step,
        };
        facts[r]!.collectives.push(c);
        events[r]!.push(ncclEvent(c, r, n, spec));
      }
      t = end;
    }
    // Trailing compute (the optimizer step), then the step ends on every rank at once.
    for (let r = 0; r < n; r++) addCompute(facts[r]!, events[r]!, t + offset(r), computeUs);
    const stepEnd = t + computeUs + gapUs;
    for (let r = 0; r < n; r++) {
      const window = { step, startUs: stepStart + offset(r), endUs: stepEnd + offset(r) };
      facts[r]!.steps.push(window);
      const dur = window.endUs - window.startUs;
      events[r]!.push({
        ph: 'X',
        cat: 'user_annotation',
        name: `ProfilerStep#${step}`,
        pid: 4242,
        tid: 4242,
        ts: window.startUs - 20,
        dur,
        args: {},
      });
      events[r]!.push({
        ph: 'X',
        cat: 'gpu_user_annotation',
        name: `ProfilerStep#${step}`,
        pid: 0,
        tid: 7,
        ts: window.startUs,
        dur,
        args: { device: 0, stream: 7 },
      });
    }
    t = stepEnd;
  }
  return facts.map((f, r) => {
    const evs = events[r]!;
    f.counts = {
      events: evs.length,
      kernels: evs.filter((e) => e.cat === 'kernel').length,
      ncclKernels: f.collectives.length,
    };
    const trace = {
      schemaVersion: 1,
      deviceProperties: [
        { id: 0, name: f.device, totalGlobalMem: 85029158912, computeMajor: 9, computeMinor: 0, numSms: 132 },
      ],
      distributedInfo: {
        backend: 'nccl',
        rank: r,
        world_size: n,
        pg_count: 1,
        pg_config: [
          {
            pg_name: group,
            pg_desc: 'default_pg',
            backend_config: 'cuda:nccl',
            pg_size: n,
            ranks: groupRanks,
          },
        ],
        nccl_version: f.ncclVersion,
      },
      hostname: f.host,
      traceEvents: evs,
      traceName: `${f.host ?? 'localhost'}_${r}.pt.trace.json`,
    };
    return { facts: f, kineto: JSON.stringify(trace) };
  });
}

function addCompute(facts: TraceRankFacts, events: Event[], start: number, dur: number): void {
  facts.computeBusy.push(start, start + dur);
  events.push({
    ph: 'X',
    cat: 'kernel',
    name: COMPUTE_KERNEL,
    pid: 0,
    tid: 7,
    ts: start,
    dur,
    args: { device: 0, stream: 7, correlation: events.length + 1 },
  });
}

function ncclEvent(c: TraceCollective, rank: number, n: number, spec: GenCollective): Event {
  const elements = spec.sizeBytes / 4;
  // nccl-tests' sizes: all_gather counts its output, reduce_scatter its input (trace-types.ts).
  const inElems = spec.op === 'all_gather' ? elements / n : elements;
  const outElems = spec.op === 'reduce_scatter' ? elements / n : elements;
  return {
    ph: 'X',
    cat: 'kernel',
    name: c.name,
    pid: 0,
    tid: 20,
    ts: c.startUs,
    dur: c.durUs,
    args: {
      device: 0,
      stream: 20,
      correlation: 100000 + c.seq,
      'Collective name': COLLECTIVE_NAME[spec.op],
      'In msg nelems': inElems,
      'Out msg nelems': outElems,
      'Group size': n,
      dtype: 'Float',
      'In split size': '[]',
      'Out split size': '[]',
      'Process Group Name': c.group,
      'Process Group Description': 'default_pg',
      'Process Group Ranks': `[${c.groupRanks?.join(', ') ?? ''}]`,
      Rank: rank,
    },
  };
}

/** Facts only. */
export function generateFacts(options: GenOptions): TraceRankFacts[] {
  return generateRun(options).map((r) => r.facts);
}
