/**
 * Fluid mode for a scenario: the workload plan packet mode runs (plan/), expressed as flows with
 * dependencies for the flow-level engine (src/sim/fluid, max-min fair sharing). Capacities are
 * payload rates (line rate less the transport's headers) and each transfer carries the idle path's
 * latency (cable delays plus one packet's store-and-forward per switch), so both modes describe the
 * same network; connection k takes the ECMP path packet mode's connection k takes. No queues,
 * losses, PFC or congestion control: those need packets. Compute phases use their mean.
 */
import type { Series } from '../core/envelope.js';
import { formatDuration } from '../core/units.js';
import { simulateFluid } from './fluid/index.js';
import { fluidNetwork, FLUID_WARNING } from './fluid-network.js';
import { planToFluidFlows } from './fluid-plan-flows.js';
import { runLargeRing } from './fluid-ring-fast-path.js';
import { fluidMetrics, type SimMetrics } from './metrics.js';
import { planWorkloads } from './plan/index.js';
import type { Scenario } from './scenario-schema.js';
import type { Topology } from './topo/index.js';
import { fluidRingFastPath, FLUID_FAST_PATH_MIN_TRANSFERS } from './work-estimate.js';

export interface FluidRun {
  metrics: SimMetrics;
  series: Series[];
  warnings: string[];
}

export interface FluidRunOptions {
  /**
   * Chunk transfers from which a lone ring all_reduce or all_gather runs on the engine's
   * arithmetic ring instead of explicit flows (default FLUID_FAST_PATH_MIN_TRANSFERS). Both give
   * the same result; the ring needs no per-flow objects. Lowered by tests to reach it.
   */
  ringFastPathMinTransfers?: number;
  /** Postpone every event to the next multiple of this many ns (fluid/engine.ts; default 0, exact). */
  timeQuantumNs?: number;
  /** Called now and then with the simulated time in microseconds. */
  onProgress?: (simulatedUs: number) => void;
}

export function runFluidScenario(
  scenario: Scenario,
  topology: Topology,
  seed: number,
  options: FluidRunOptions = {},
): FluidRun {
  const plan = planWorkloads(scenario, topology.hostCount, seed);
  const warnings = [FLUID_WARNING];
  const sliced = plan.workloads.filter((w) => 'slices' in w && w.slices > 1).map((w) => w.name);
  if (sliced.length > 0)
    warnings.push(
      `fluid mode moves each ring step as one transfer: the slice of ${sliced.join(', ')} applies in packet mode only`,
    );
  const staggered = plan.workloads
    .filter((w) => w.kind === 'incast' && (w.startGapS > 0 || w.startOffsetsS !== null))
    .map((w) => w.name);
  if (staggered.length > 0)
    warnings.push(
      `fluid mode starts every sender of an incast round at once: the startGap or startOffsets of ${staggered.join(', ')} apply in packet mode only`,
    );
  const timeQuantumNs = options.timeQuantumNs ?? 0;
  if (timeQuantumNs > 0)
    warnings.push(
      `time quantum ${formatDuration(timeQuantumNs / 1e9)}: every fluid event waits for the next multiple of it, so each dependent step ends up to two quanta late and the lateness adds up along a chain of steps (a 4,096-rank ring in host order, 8,190 steps, ends 14% late at 1us and 1.1% at 100ns: docs/simulator.md); exact times without --time-quantum`,
    );
  const network = fluidNetwork(scenario, topology, plan);
  const progress = options.onProgress;
  const engine = {
    timeQuantumNs,
    ...(progress ? { onProgress: (ns: number) => progress(ns / 1e3) } : {}),
  };
  const minTransfers = options.ringFastPathMinTransfers ?? FLUID_FAST_PATH_MIN_TRANSFERS;
  if (fluidRingFastPath(scenario, topology.hostCount, minTransfers)) {
    const ring = runLargeRing(plan, topology, network, engine);
    if (ring) return { metrics: ring, series: [], warnings };
  }
  const { flows, spans } = planToFluidFlows(plan, network.routeOf);
  const result = simulateFluid({ links: network.links, flows }, engine);
  const totalBytes = flows.reduce((sum, f) => sum + f.sizeBytes, 0);
  // A loop, not Math.min(...flows): spreading a million flows overflows the call stack.
  let startNs = flows.length > 0 ? Infinity : 0;
  for (const f of flows) startNs = Math.min(startNs, f.startTimeNs ?? 0);
  const perWorkload = spans.map((span) => {
    let begin = Infinity;
    let end = 0;
    let bytes = 0;
    for (let i = span.first; i < span.last; i++) {
      const timing = result.flows[i];
      if (!timing) continue;
      begin = Math.min(begin, timing.startNs);
      end = Math.max(end, timing.finishNs);
      bytes += flows[i]?.sizeBytes ?? 0;
    }
    const us = (end - begin) / 1e3;
    return {
      name: span.name,
      kind: span.kind,
      flows: span.last - span.first,
      completionTimeUs: us,
      goodputGbps: us > 0 ? (bytes * 8) / (us * 1e3) : 0,
    };
  });
  return {
    metrics: fluidMetrics(result, totalBytes, result.completionTimeNs - startNs, perWorkload),
    series: [],
    warnings,
  };
}
