/**
 * Independent point-to-point transfers: explicit flows (background traffic, a victim flow) and
 * permutations (every host sends to one other host, each receives from one: htsim's permutation).
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

export interface FlowSpec {
  src: number;
  dst: number;
  sizeBytes: number;
  startPs: number;
  transport: TransportKind;
}

export class FlowsWorkload implements Workload {
  startPs = -1;
  finishPs = -1;
  done = false;
  private remaining = 0;
  readonly conns: Connection[] = [];
  readonly finishByConn: number[] = [];
  private readonly startByConn: number[] = [];
  private sim: Simulator | undefined;

  constructor(
    readonly kind: 'flow' | 'permutation',
    readonly name: string,
    readonly specs: FlowSpec[],
  ) {}

  start(sim: Simulator, connect: ConnectionFactory): void {
    this.sim = sim;
    this.remaining = this.specs.length;
    if (this.remaining === 0) this.done = true;
    for (const flow of this.specs) {
      const conn = connect(flow.src, flow.dst, flow.transport, this);
      this.conns.push(conn);
      this.finishByConn.push(-1);
      this.startByConn.push(flow.startPs);
      sim.at(flow.startPs, () => {
        if (this.startPs < 0 || sim.now < this.startPs) this.startPs = sim.now;
        sim.offer(conn, flow.sizeBytes, 0);
      });
    }
  }

  onMessage(conn: Connection, _tag: number, nowPs: number): void {
    const index = this.conns.indexOf(conn);
    this.finishByConn[index] = nowPs;
    if (--this.remaining === 0) {
      this.done = true;
      this.finishPs = nowPs;
    }
  }

  progress(): WorkloadProgress {
    return { unit: 'flows', finished: this.specs.length - this.remaining, total: this.specs.length };
  }

  /** FCTs of finished flows only; goodput is the bytes delivered over the workload's span so far. */
  report(stopPs = this.sim?.now ?? 0): WorkloadReport {
    const fcts: number[] = [];
    let bytes = 0;
    this.conns.forEach((conn, i) => {
      const finish = this.finishByConn[i]!;
      if (finish >= 0) fcts.push((finish - this.startByConn[i]!) / 1e6);
      bytes += conn.delivered;
    });
    const endPs = this.done ? this.finishPs : stopPs;
    const elapsed = this.startPs >= 0 ? endPs - this.startPs : 0;
    return {
      metrics: {
        completed: this.done,
        flows: this.specs.length,
        flowsCompleted: fcts.length,
        goodputGbps: elapsed > 0 ? (bytes * 8) / (elapsed / 1e12) / 1e9 : 0,
        fctUs: fcts,
      },
    };
  }
}
