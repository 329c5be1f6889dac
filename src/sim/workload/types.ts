/** What every workload gives the runner: it creates its connections, drives them, and reports. */
import type { Series } from '../../core/envelope.js';
import type { Simulator, MessageListener } from '../simulator.js';
import type { Connection } from '../transport/connection.js';

import type { TransportKind } from '../plan/index.js';

export type { TransportKind };

/** Builds a connection between two hosts with the scenario's (or the workload's) transport. */
export type ConnectionFactory = (
  src: number,
  dst: number,
  transport: TransportKind,
  listener: MessageListener,
) => Connection;

export interface WorkloadReport {
  metrics: Record<string, unknown>;
  series?: Series[];
}

/** How far a workload got: `finished` of `total` units (iterations, rounds, flows). */
export interface WorkloadProgress {
  unit: 'iterations' | 'rounds' | 'flows';
  finished: number;
  total: number;
}

export interface Workload extends MessageListener {
  readonly kind: string;
  readonly name: string;
  /** First time the workload offered data (ps), -1 before. */
  readonly startPs: number;
  /** Time its last message was delivered (ps), -1 before. */
  readonly finishPs: number;
  /** Create connections and schedule the first offers. */
  start(sim: Simulator, connect: ConnectionFactory): void;
  progress(): WorkloadProgress;
  /**
   * Metrics of what finished. `stopPs` is when the simulation stopped (default: the simulator's
   * clock, which a maxTime stop leaves at maxTime): an unfinished workload's goodput is over its
   * start to there, and times of unfinished iterations, rounds or flows are left out.
   */
  report(stopPs?: number): WorkloadReport;
}

export const psToUs = (ps: number): number => ps / 1e6;
