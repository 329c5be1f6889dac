/**
 * Collectives as dependent chunk transfers over persistent connections (NCCL keeps its
 * connections for the life of the communicator, so TCP windows and DCQCN rates carry over).
 * Ring all_reduce: 2(N-1) steps of S/N bytes to the next rank (reduce-scatter, then all-gather);
 * ring all_gather: N-1 steps (Patarasuk and Yuan, JPDC 2009; NCCL's ring). A rank sends step s
 * of an iteration once it has received step s-1 from its predecessor (its input has arrived);
 * with `slices` k > 1, each step is k transfers and slice j of step s waits only for slice j of
 * step s-1, so a step's slices flow through the ring as a pipeline (bench tcp's src/bench/ring.ts,
 * NCCL's slices) and a connection need not go idle between steps.
 * alltoall: every rank sends S/N to every other rank at once. Each iteration starts, per rank,
 * after that rank's compute phase (mean plus seeded normal jitter), so stragglers show up in the
 * per-rank step times.
 */
import { busbwFactor, opOfCompactName } from '../../core/collectives.js';
import type { Series } from '../../core/envelope.js';
import type { SimCollectiveKind } from '../scenario-schema.js';
import type { Simulator } from '../simulator.js';
import type { Connection } from '../transport/connection.js';
import type {
  ConnectionFactory,
  TransportKind,
  Workload,
  WorkloadProgress,
  WorkloadReport,
} from './types.js';

/** Iterations the per-iteration arrays hold at first; they double as the run goes on. */
const INITIAL_ITERATION_SLOTS = 1024;

export interface CollectiveSpec {
  name: string;
  kind: SimCollectiveKind;
  ranks: number[];
  sizeBytes: number;
  /** Bytes per transfer and transfers per rank per iteration, from the workload plan. */
  chunkBytes: number;
  steps: number;
  /** Transfers per step, from the plan (1 for alltoall): slice j of a step waits for slice j of the step before. */
  slices: number;
  iterations: number;
  computeMeanPs: number;
  computeJitterPs: number;
  startPs: number;
  transport: TransportKind;
}

export class CollectiveWorkload implements Workload {
  startPs = -1;
  finishPs = -1;
  done = false;
  private sim: Simulator | undefined;
  /** Ring: conns[r] carries rank r -> r+1. alltoall: conns[r * n + d]. */
  private conns: Connection[] = [];
  private readonly rankOfConnSrc = new Map<Connection, number>();
  private readonly rankOfConnDst = new Map<Connection, number>();
  private readonly steps: number;
  private readonly chunkBytes: number;
  private readonly slices: number;
  /** Transfers per rank per iteration: steps x slices for a ring, steps for alltoall. */
  private readonly transfers: number;
  private readonly computesDone: Int32Array;
  private readonly sent: Int32Array;
  private readonly received: Int32Array;
  /**
   * Per iteration and rank: compute end (collective start) and collective end, in ps; -1 until
   * then. Grown as iterations begin, so memory follows the iterations simulated, not those asked for.
   */
  private joinPs: Float64Array;
  private finishRankPs: Float64Array;
  private ranksFinished = 0;
  /** Ranks done with each iteration (an iteration is finished when all n are). */
  private ranksDoneByIteration: Int32Array;
  private iterationsFinished = 0;
  private readonly alltoallReceived: number[] = [];

  constructor(private readonly spec: CollectiveSpec) {
    const n = spec.ranks.length;
    this.steps = spec.steps;
    this.chunkBytes = spec.chunkBytes;
    this.slices = spec.slices;
    this.transfers = spec.steps * this.slices;
    this.computesDone = new Int32Array(n);
    this.sent = new Int32Array(n);
    this.received = new Int32Array(n);
    const initial = Math.min(spec.iterations, INITIAL_ITERATION_SLOTS);
    this.joinPs = new Float64Array(n * initial).fill(-1);
    this.finishRankPs = new Float64Array(n * initial).fill(-1);
    this.ranksDoneByIteration = new Int32Array(initial);
  }

  /** Room for iteration `iteration` in the per-iteration arrays (doubling, capped at the total). */
  private reserve(iteration: number): void {
    const slots = this.ranksDoneByIteration.length;
    if (iteration < slots) return;
    const n = this.spec.ranks.length;
    const grown = Math.min(this.spec.iterations, Math.max(iteration + 1, 2 * slots));
    const grow = (old: Float64Array): Float64Array => {
      const next = new Float64Array(n * grown).fill(-1);
      next.set(old);
      return next;
    };
    this.joinPs = grow(this.joinPs);
    this.finishRankPs = grow(this.finishRankPs);
    const done = new Int32Array(grown);
    done.set(this.ranksDoneByIteration);
    this.ranksDoneByIteration = done;
  }

  get kind(): string {
    return this.spec.kind;
  }

  get name(): string {
    return this.spec.name;
  }

  start(sim: Simulator, connect: ConnectionFactory): void {
    this.sim = sim;
    const ranks = this.spec.ranks;
    const n = ranks.length;
    if (this.spec.kind === 'alltoall') {
      for (let r = 0; r < n; r++) {
        for (let d = 0; d < n; d++) {
          if (d === r) continue;
          const conn = connect(ranks[r]!, ranks[d]!, this.spec.transport, this);
          this.conns[r * n + d] = conn;
          this.rankOfConnSrc.set(conn, r);
          this.rankOfConnDst.set(conn, d);
        }
      }
    } else {
      for (let r = 0; r < n; r++) {
        const conn = connect(ranks[r]!, ranks[(r + 1) % n]!, this.spec.transport, this);
        this.conns.push(conn);
        this.rankOfConnSrc.set(conn, r);
        this.rankOfConnDst.set(conn, (r + 1) % n);
      }
    }
    sim.at(this.spec.startPs, () => {
      this.startPs = sim.now;
      for (let r = 0; r < n; r++) this.beginCompute(r);
    });
  }

  private beginCompute(rank: number): void {
    const sim = this.sim!;
    const jitter = this.spec.computeJitterPs > 0 ? sim.rng.normal() * this.spec.computeJitterPs : 0;
    const compute = Math.max(0, Math.round(this.spec.computeMeanPs + jitter));
    const join = (): void => {
      const iteration = this.computesDone[rank]!;
      this.reserve(iteration);
      this.joinPs[iteration * this.spec.ranks.length + rank] = sim.now;
      this.computesDone[rank] = iteration + 1;
      this.pump(rank);
    };
    if (compute === 0) join();
    else sim.at(sim.now + compute, join);
  }

  /** Send every step this rank is allowed to: its compute is done and its input has arrived. */
  private pump(rank: number): void {
    const sim = this.sim!;
    const n = this.spec.ranks.length;
    const steps = this.steps;
    if (this.spec.kind === 'alltoall') {
      const iteration = this.sent[rank]!;
      if (iteration >= this.computesDone[rank]!) return;
      this.sent[rank] = iteration + 1;
      for (let d = 0; d < n; d++)
        if (d !== rank) sim.offer(this.conns[rank * n + d]!, this.chunkBytes, iteration);
      return;
    }
    // Transfer g is slice g mod k of step floor(g / k) (counted over iterations); it needs the same
    // slice of the step before from the predecessor, transfer g - k, and arrivals come in order.
    const k = this.slices;
    for (;;) {
      const g = this.sent[rank]!;
      const iteration = Math.floor(g / (steps * k));
      if (iteration >= this.spec.iterations || iteration >= this.computesDone[rank]!) return;
      if (this.received[rank]! < g - k + 1) return;
      this.sent[rank] = g + 1;
      sim.offer(this.conns[rank]!, this.sliceBytes(g % k), g);
    }
  }

  /** Bytes of slice j: the chunk cut into k near-equal whole-byte parts. */
  private sliceBytes(j: number): number {
    const k = this.slices;
    if (k === 1) return this.chunkBytes;
    return Math.floor(((j + 1) * this.chunkBytes) / k) - Math.floor((j * this.chunkBytes) / k);
  }

  onMessage(conn: Connection, tag: number, nowPs: number): void {
    const rank = this.rankOfConnDst.get(conn)!;
    const n = this.spec.ranks.length;
    let iteration = -1;
    if (this.spec.kind === 'alltoall') {
      // Tags are iterations: a fast peer's next-iteration chunk must not count for this one.
      const slot = tag * n + rank;
      const got = (this.alltoallReceived[slot] ?? 0) + 1;
      this.alltoallReceived[slot] = got;
      if (got === n - 1) iteration = tag;
    } else {
      const got = this.received[rank]! + 1;
      this.received[rank] = got;
      if (got % this.transfers === 0) iteration = got / this.transfers - 1;
    }
    if (iteration >= 0) {
      this.reserve(iteration);
      this.finishRankPs[iteration * n + rank] = nowPs;
      const ranksDone = this.ranksDoneByIteration[iteration]! + 1;
      this.ranksDoneByIteration[iteration] = ranksDone;
      if (ranksDone === n) this.iterationsFinished++;
      if (++this.ranksFinished === n * this.spec.iterations) {
        this.done = true;
        this.finishPs = nowPs;
        return;
      }
      if (iteration + 1 < this.spec.iterations) this.beginCompute(rank);
    }
    if (this.spec.kind !== 'alltoall') this.pump(rank);
  }

  progress(): WorkloadProgress {
    return { unit: 'iterations', finished: this.iterationsFinished, total: this.spec.iterations };
  }

  report(stopPs = this.sim?.now ?? 0): WorkloadReport {
    const n = this.spec.ranks.length;
    const iterationTimeUs: number[] = [];
    const stragglerUs: number[] = [];
    const points: Record<string, number>[] = [];
    const slots = this.ranksDoneByIteration.length;
    for (let i = 0; i < slots; i++) {
      let firstJoin = Infinity;
      let lastJoin = -Infinity;
      let lastFinish = -Infinity;
      for (let r = 0; r < n; r++) {
        const join = this.joinPs[i * n + r]!;
        const finish = this.finishRankPs[i * n + r]!;
        if (finish < 0) continue;
        firstJoin = Math.min(firstJoin, join);
        lastJoin = Math.max(lastJoin, join);
        lastFinish = Math.max(lastFinish, finish);
        const previous = i === 0 ? this.startPs : this.finishRankPs[(i - 1) * n + r]!;
        points.push({
          iteration: i,
          rank: r,
          stepTimeUs: (finish - previous) / 1e6,
          collectiveTimeUs: (finish - join) / 1e6,
        });
      }
      // Times only for iterations every rank finished: a cut-short one has no duration.
      if (this.ranksDoneByIteration[i] !== n) continue;
      iterationTimeUs.push((lastFinish - firstJoin) / 1e6);
      stragglerUs.push((lastJoin - firstJoin) / 1e6);
    }
    const series: Series[] = [{ name: `${this.spec.name}: per-rank step time`, unit: 'us', points }];
    const busFactor = busbwFactor(opOfCompactName(this.spec.kind), n);
    const finished = iterationTimeUs.length;
    const meanIterationUs = finished > 0 ? iterationTimeUs.reduce((a, b) => a + b, 0) / finished : 0;
    let delivered = 0;
    for (const conn of this.conns) if (conn) delivered += conn.delivered;
    const endPs = this.done ? this.finishPs : stopPs;
    const elapsedPs = this.startPs >= 0 ? endPs - this.startPs : 0;
    // nccl-tests definitions: algbw = S / t, busbw = algbw x factor (GB = 1e9 bytes); none without a finished iteration.
    const algbwGBps = meanIterationUs > 0 ? this.spec.sizeBytes / (meanIterationUs * 1e3) : null;
    return {
      metrics: {
        ranks: n,
        completed: this.done,
        goodputGbps: elapsedPs > 0 ? (delivered * 8) / (elapsedPs / 1e12) / 1e9 : 0,
        sizeBytes: this.spec.sizeBytes,
        iterations: this.spec.iterations,
        iterationsCompleted: finished,
        iterationTimeUs,
        algbwGBps,
        busbwGBps: algbwGBps === null ? null : algbwGBps * busFactor,
        stragglerPenaltyUs: finished > 0 ? stragglerUs.reduce((a, b) => a + b, 0) / finished : null,
      },
      series,
    };
  }
}
