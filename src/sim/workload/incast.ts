/**
 * Synchronised-read incast as in the incast literature (Phanishayee et al., FAST 2008; Chen et
 * al., WREN 2009): each of S senders returns one block to the receiver per round, and the next
 * round begins only when every block of the current one has arrived.
 */
import type { Simulator } from '../simulator.js';
import type { Connection } from '../transport/connection.js';
import type {
  ConnectionFactory,
  TransportKind,
  Workload,
  WorkloadProgress,
  WorkloadReport,
} from './types.js';

export interface IncastSpec {
  name: string;
  receiver: number;
  senders: number[];
  blockBytes: number;
  rounds: number;
  /** Between one sender's start and the next's, in an order drawn each round (0: all at once). */
  startGapPs: number;
  /** Per round (cycled): the senders' start offsets, sorted here, handed out in an order drawn each round; null: startGapPs. */
  startOffsetsPs: number[][] | null;
  startPs: number;
  transport: TransportKind;
}

export class IncastWorkload implements Workload {
  readonly kind = 'incast';
  startPs = -1;
  finishPs = -1;
  done = false;
  private conns: Connection[] = [];
  private round = 0;
  private outstanding = 0;
  private roundStartPs = 0;
  private readonly roundTimesPs: number[] = [];
  private sim: Simulator | undefined;

  constructor(private readonly spec: IncastSpec) {}

  get name(): string {
    return this.spec.name;
  }

  start(sim: Simulator, connect: ConnectionFactory): void {
    this.sim = sim;
    this.conns = this.spec.senders.map((src) => connect(src, this.spec.receiver, this.spec.transport, this));
    sim.at(this.spec.startPs, () => this.beginRound());
  }

  private beginRound(): void {
    const sim = this.sim!;
    if (this.startPs < 0) this.startPs = sim.now;
    this.roundStartPs = sim.now;
    this.outstanding = this.conns.length;
    const gap = this.spec.startGapPs;
    const offsets = this.spec.startOffsetsPs;
    if (gap <= 0 && offsets === null) {
      for (const conn of this.conns) sim.offer(conn, this.spec.blockBytes, this.round);
      return;
    }
    // A random order each round (Fisher-Yates on the run's generator), then one sender per gap.
    const order = this.conns.slice();
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(sim.rng.next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const round = this.round;
    const row = offsets === null ? null : this.sortedOffsets(offsets[round % offsets.length]!);
    order.forEach((conn, k) => {
      const delay = row === null ? k * gap : row[k]!;
      if (delay <= 0) sim.offer(conn, this.spec.blockBytes, round);
      else sim.at(sim.now + delay, () => sim.offer(conn, this.spec.blockBytes, round));
    });
  }

  /** A round's offsets from its earliest start, ascending. */
  private sortedOffsets(round: readonly number[]): number[] {
    const sorted = [...round].sort((a, b) => a - b);
    const first = sorted[0] ?? 0;
    return sorted.map((offset) => offset - first);
  }

  onMessage(_conn: Connection, _tag: number, nowPs: number): void {
    if (--this.outstanding > 0) return;
    this.roundTimesPs.push(nowPs - this.roundStartPs);
    this.round++;
    if (this.round < this.spec.rounds) {
      this.beginRound();
    } else {
      this.done = true;
      this.finishPs = nowPs;
    }
  }

  progress(): WorkloadProgress {
    return { unit: 'rounds', finished: this.roundTimesPs.length, total: this.spec.rounds };
  }

  /** Goodput over finished rounds only: a round cut short by maxTime has no round time. */
  report(): WorkloadReport {
    const bytes = this.spec.senders.length * this.spec.blockBytes * this.roundTimesPs.length;
    const elapsed = this.roundTimesPs.reduce((a, b) => a + b, 0);
    return {
      metrics: {
        senders: this.spec.senders.length,
        blockSizeBytes: this.spec.blockBytes,
        completed: this.done,
        rounds: this.spec.rounds,
        roundsCompleted: this.roundTimesPs.length,
        goodputGbps: elapsed > 0 ? (bytes * 8) / (elapsed / 1e12) / 1e9 : null,
        roundTimeUs: this.roundTimesPs.map((t) => t / 1e6),
        timeouts: this.conns.reduce((a, c) => a + c.timeouts, 0),
      },
    };
  }
}
