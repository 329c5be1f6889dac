/**
 * Public shapes of the fluid (flow-level) simulator. Rates are bits per second, as everywhere in
 * aifabric (core/units.ts); sizes are bytes; times are nanoseconds held in float64 (a fluid model
 * produces irrational-looking finish times, so integer ticks would only add rounding).
 */

/** A directed link. `id` is an integer in [0, 2^31); `capacityBps` is bits per second. */
export interface FluidLink {
  id: number;
  capacityBps: number;
}

/** One transfer of `sizeBytes` along `path` (directed link ids, in order). */
export interface FluidFlow {
  id: number;
  path: readonly number[];
  sizeBytes: number;
  /** Earliest start; with dependencies, the flow starts at max(startTimeNs, the last one met). */
  startTimeNs?: number;
  /** Flows that must finish (arrive) first: a collective step starts when its input has arrived. */
  dependsOn?: readonly number[];
  /**
   * Flows that must have sent their last byte first, without waiting for it to arrive: the
   * previous message on the same connection, which a sender streams back to back.
   */
  sentAfter?: readonly number[];
  /** Added once after the last byte leaves the network (propagation + per-message alpha). */
  latencyNs?: number;
}

/**
 * A workload in compact form, so that 30 million chunk transfers need no 30 million objects.
 * Flows are indices 0..flowCount-1; everything is asked for on demand. The builders in
 * workloads/ implement it arithmetically; `FlowTableWorkload` implements it over `FluidFlow[]`.
 */
export interface FluidWorkload {
  readonly flowCount: number;
  /** Interned paths: path p is `pathLinkIds[pathOffsets[p] .. pathOffsets[p+1])`, as link ids. */
  readonly pathOffsets: Int32Array;
  readonly pathLinkIds: Int32Array;
  /** Upper bounds used to size the engine's buffers (dependencies count both kinds). */
  readonly maxDependencies: number;
  readonly maxDependents: number;
  /** The id reported in results (the FluidFlow id, or the index itself for built workloads). */
  flowIdOf(flow: number): number;
  pathOf(flow: number): number;
  sizeBytesOf(flow: number): number;
  latencyNsOf(flow: number): number;
  startTimeNsOf(flow: number): number;
  dependencyCountOf(flow: number): number;
  /** Writes the flows waiting for `flow` to arrive into `out` and returns how many. */
  dependentsOf(flow: number, out: Int32Array): number;
  /** Writes the flows waiting for `flow`'s last byte to be sent into `out` and returns how many. */
  sentDependentsOf(flow: number, out: Int32Array): number;
}

export type FluidInput =
  | { links: readonly FluidLink[]; flows: readonly FluidFlow[] }
  | { links: readonly FluidLink[]; workload: FluidWorkload };

export interface FluidOptions {
  /** Keep each flow's start and finish in the result (default true). Off for million-flow runs. */
  recordFlows?: boolean;
  /**
   * Postpones every event to the next multiple of this many nanoseconds (default 0: exact times).
   * Trades accuracy for speed when flows end at scattered instants; see engine.ts.
   */
  timeQuantumNs?: number;
  /** Called now and then (every few thousand batches of events) with the simulated time, ns. */
  onProgress?: (simulatedNs: number) => void;
}

export interface FluidFlowTiming {
  id: number;
  /** When the flow's first byte entered the network. */
  startNs: number;
  /** When its last byte arrived, latency included: `dependsOn` dependents may start from here. */
  finishNs: number;
}

export interface FluidResult {
  /** Finish of the last flow (0 for an empty workload). */
  completionTimeNs: number;
  /** In flow order; empty when `recordFlows` is false. */
  flows: FluidFlowTiming[];
  /** Flow starts + flow ends + rate recomputations processed. */
  events: number;
  /** Most flows transferring bytes at one instant. */
  maxConcurrentFlows: number;
  flowCount: number;
  /** Batches of simultaneous starts/ends that changed max-min rates (each counted once). */
  rateRecomputations: number;
  /** Connected components (flows linked through shared links) water-filled, lone flows included. */
  componentsFilled: number;
  totalBytes: number;
}

/** Path through the network between two hosts; `flowHash` picks among equal-cost paths (ECMP). */
export type PathFn = (srcHost: number, dstHost: number, flowHash: number) => readonly number[];
