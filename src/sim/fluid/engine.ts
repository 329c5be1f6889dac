/**
 * The fluid simulation loop: flows start (at their start time, once every `dependsOn` flow has
 * arrived and every `sentAfter` flow has sent its last byte), share links max-min fairly, and
 * end; rates are recomputed after every batch of simultaneous starts and ends. Between batches every rate is constant, so the next event time is exact
 * (remaining bytes / rate): no time stepping.
 *
 * Three event kinds share one queue, told apart by the second payload:
 *   b >= 0: the flow in slot a sends its last byte and leaves its links, if b is still its version;
 *   b = -1: flow a's data has arrived (latency elapsed): it finishes and releases dependents;
 *   b = -2: flow a's start time has come.
 * Events closer than BATCH_TOLERANCE form one batch, so finishes that differ only by float
 * rounding cost one recomputation, not one each.
 *
 * With a time quantum q > 0 (an opt-in approximation, as SimGrid's `surf/precision` is), every
 * event is postponed to the next multiple of q: a flow that has sent its last byte keeps its share
 * until then, a start or an arrival waits for it. Events then meet on the grid, so a batch
 * gathers what exact times would spread over many; nothing happens earlier than it would, bytes
 * are conserved, and each event is late by less than q, so a chain of k dependent transfers ends
 * at most about 2kq late (a finish and an arrival each).
 */
import { InputError } from '../../core/errors.js';
import { FluidEventQueue } from './event-queue.js';
import { FairShareNetwork } from './fair-share-network.js';
import type { FluidOptions, FluidResult, FluidFlowTiming, FluidWorkload } from './types.js';

const DELIVER = -1;
const START = -2;
/** Absolute and relative batching tolerance: 1 fs plus 1e-13 of the clock. */
const BATCH_TOLERANCE_NS = 1e-6;
const BATCH_TOLERANCE_RELATIVE = 1e-13;
/** Batches between two onProgress calls (chosen: a power of two, a few ms of work when batches are large). */
const PROGRESS_EVERY_BATCHES = 4096;

export interface DenseNetwork {
  /** Capacity per dense link index, bytes per nanosecond. */
  capacityBytesPerNs: Float64Array;
  /** The workload's interned paths with link ids replaced by dense link indices. */
  pathOffsets: Int32Array;
  pathLinks: Int32Array;
}

export function runFluidEngine(
  network: DenseNetwork,
  workload: FluidWorkload,
  options: FluidOptions = {},
): FluidResult {
  const quantumNs = options.timeQuantumNs ?? 0;
  if (!(quantumNs >= 0 && Number.isFinite(quantumNs)))
    throw new InputError(`time quantum: ${quantumNs} ns (expected a finite duration of 0 or more)`);
  const run = new FluidRun(network, workload, options.recordFlows ?? true, quantumNs);
  // One call per batch, so the hot code is an ordinary optimised function, not the on-stack
  // replacement of one long loop.
  const onProgress = options.onProgress;
  if (!onProgress) {
    while (!run.queue.isEmpty) run.processBatch();
  } else {
    for (let batches = 1; !run.queue.isEmpty; batches++) {
      run.processBatch();
      if ((batches & (PROGRESS_EVERY_BATCHES - 1)) === 0) onProgress(run.clockNs);
    }
  }
  return run.result();
}

/** The state of one simulation; methods are the engine's steps. */
class FluidRun {
  readonly queue = new FluidEventQueue();
  private readonly net: FairShareNetwork;
  private readonly pending: Uint8Array | Uint16Array | Uint32Array;
  private readonly startNs: Float64Array | undefined;
  private readonly finishNs: Float64Array | undefined;
  private readonly dependents: Int32Array;
  /** Zero-byte flows whose bytes are done, and zero-latency arrivals, not yet processed. */
  private readonly sentNow: number[] = [];
  private readonly arrivedNow: number[] = [];
  private nowNs = 0;
  private lastArrivalNs = 0;
  private started = 0;
  private finished = 0;
  private recomputations = 0;
  private maxConcurrent = 0;
  private totalBytes = 0;

  constructor(
    private readonly network: DenseNetwork,
    private readonly workload: FluidWorkload,
    record: boolean,
    private readonly quantumNs: number,
  ) {
    const flowCount = workload.flowCount;
    this.net = new FairShareNetwork(network.capacityBytesPerNs, network.pathOffsets, network.pathLinks);
    this.pending = pendingCounters(flowCount, workload.maxDependencies);
    this.startNs = record ? new Float64Array(flowCount) : undefined;
    this.finishNs = record ? new Float64Array(flowCount) : undefined;
    this.dependents = new Int32Array(Math.max(1, workload.maxDependents));
    for (let flow = 0; flow < flowCount; flow++) {
      const count = workload.dependencyCountOf(flow);
      this.pending[flow] = count;
      if (count === 0) this.queue.push(this.onGrid(workload.startTimeNsOf(flow)), flow, START);
    }
  }

  /** Handles every event up to the batch tolerance, then recomputes rates once. */
  processBatch(): void {
    const { queue, net } = this;
    const nowNs = queue.peekTime();
    this.nowNs = nowNs;
    const batchEndNs = nowNs + BATCH_TOLERANCE_NS + nowNs * BATCH_TOLERANCE_RELATIVE;
    do {
      let event = queue.popBucket();
      while (event >= 0) {
        const a = queue.a(event);
        const b = queue.b(event);
        const following = queue.next(event);
        queue.release(event);
        event = following;
        if (b >= 0) {
          if (net.versionOf(a) !== b) continue; // superseded by a rate change
          const flow = net.flowOf(a);
          net.removeFlow(a);
          this.bytesDelivered(flow);
        } else if (b === DELIVER) {
          this.arrive(a);
        } else {
          this.startFlow(a);
        }
        this.drainInstant();
      }
    } while (!queue.isEmpty && queue.peekTime() <= batchEndNs);

    if (net.activeCount > this.maxConcurrent) this.maxConcurrent = net.activeCount;
    // One recomputation per batch that changed any rate, whether refilled here or given at start.
    if (net.needsRecompute || net.changedCount > 0) this.recomputations++;
    if (net.needsRecompute) net.recompute(nowNs);
    const changed = net.changed;
    for (let i = 0; i < net.changedCount; i++) {
      const slot = changed[i]!;
      queue.push(this.onGrid(net.finishNsOf(slot)), slot, net.versionOf(slot));
    }
    net.clearChanged();
  }

  private startFlow(flow: number): void {
    const workload = this.workload;
    this.started++;
    if (this.startNs) this.startNs[flow] = this.nowNs;
    const sizeBytes = workload.sizeBytesOf(flow);
    this.totalBytes += sizeBytes;
    if (sizeBytes > 0) {
      const path = workload.pathOf(flow);
      if (this.network.pathOffsets[path + 1]! === this.network.pathOffsets[path]!) {
        throw new InputError(
          `flow ${workload.flowIdOf(flow)}: ${sizeBytes} bytes on an empty path (expected at least one link)`,
        );
      }
      this.net.addFlow(flow, path, sizeBytes, this.nowNs);
    } else {
      // Deferred, not called: the caller may be iterating the shared dependents buffer.
      this.sentNow.push(flow);
    }
  }

  /** Instant consequences (zero bytes, zero latency) release their dependents at the same time. */
  private drainInstant(): void {
    for (;;) {
      if (this.sentNow.length > 0) this.bytesDelivered(this.sentNow.pop()!);
      else if (this.arrivedNow.length > 0) this.arrive(this.arrivedNow.pop()!);
      else return;
    }
  }

  /** The flow's last byte has left: the next message on its connection may go; latency runs. */
  private bytesDelivered(flow: number): void {
    const { workload, dependents } = this;
    const count = workload.sentDependentsOf(flow, dependents);
    for (let i = 0; i < count; i++) this.release(dependents[i]!);
    const latencyNs = workload.latencyNsOf(flow);
    if (latencyNs > 0) this.queue.push(this.onGrid(this.nowNs + latencyNs), flow, DELIVER);
    else this.arrivedNow.push(flow);
  }

  private arrive(flow: number): void {
    const { workload, dependents, nowNs } = this;
    this.finished++;
    this.lastArrivalNs = nowNs;
    if (this.finishNs) this.finishNs[flow] = nowNs;
    const count = workload.dependentsOf(flow, dependents);
    for (let i = 0; i < count; i++) this.release(dependents[i]!);
  }

  /** One dependency of `flow` is met; it starts when all are, and not before its start time. */
  private release(flow: number): void {
    const left = this.pending[flow]! - 1;
    this.pending[flow] = left;
    if (left > 0) return;
    const releaseNs = this.onGrid(this.workload.startTimeNsOf(flow));
    if (releaseNs > this.nowNs) this.queue.push(releaseNs, flow, START);
    else this.startFlow(flow);
  }

  /** `timeNs` itself, or with a time quantum the first multiple of it not before `timeNs`. */
  private onGrid(timeNs: number): number {
    const q = this.quantumNs;
    if (q === 0) return timeNs;
    // One product per grid point, so events meant for the same point share its bucket exactly.
    let step = Math.ceil(timeNs / q);
    if (step * q < timeNs) step++;
    return step * q;
  }

  /** The time of the batch processed last. */
  get clockNs(): number {
    return this.nowNs;
  }

  result(): FluidResult {
    const { workload, pending, startNs, finishNs } = this;
    const flowCount = workload.flowCount;
    if (this.finished < flowCount) {
      let example = 0;
      while (example < flowCount && pending[example] === 0) example++;
      throw new InputError(
        `${flowCount - this.finished} flows never started: their dependencies form a cycle (for example flow ${workload.flowIdOf(example)})`,
      );
    }
    const flows: FluidFlowTiming[] = [];
    if (startNs && finishNs) {
      for (let flow = 0; flow < flowCount; flow++) {
        flows.push({ id: workload.flowIdOf(flow), startNs: startNs[flow]!, finishNs: finishNs[flow]! });
      }
    }
    return {
      completionTimeNs: this.lastArrivalNs,
      flows,
      events: this.started + this.finished + this.recomputations,
      maxConcurrentFlows: this.maxConcurrent,
      flowCount,
      rateRecomputations: this.recomputations,
      componentsFilled: this.net.componentsFilled,
      totalBytes: this.totalBytes,
    };
  }
}

/** One counter per flow, in the narrowest array that holds the largest dependency count. */
function pendingCounters(flowCount: number, maxDependencies: number): Uint8Array | Uint16Array | Uint32Array {
  if (maxDependencies <= 0xff) return new Uint8Array(flowCount);
  if (maxDependencies <= 0xffff) return new Uint16Array(flowCount);
  return new Uint32Array(flowCount);
}
