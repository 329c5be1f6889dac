/**
 * runScenario: the library entry point behind `aifabric sim`. Packet mode runs the discrete-event
 * simulator; fluid mode hands the same topology and workload plan (plan/) to the flow-level
 * engine. Both return one SimMetrics type (metrics.ts).
 * Same scenario and seed give identical output except createdAt and `timing`.
 */
import { performance } from 'node:perf_hooks';
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { UsageError } from '../core/errors.js';
import { runFluidScenario } from './fluid-run.js';
import type { SimMetrics } from './metrics.js';
import { runPacket } from './packet-run.js';
import { buildPacketReport } from './report.js';
import { locatorOf, validateScenario } from './scenario.js';
import type { Scenario } from './scenario-schema.js';

export type SimMode = 'packet' | 'fluid';

export interface RunScenarioOptions {
  mode?: SimMode;
  /** Overrides the scenario's seed (default 1). */
  seed?: number;
  /** Called now and then with simulated microseconds. */
  onProgress?: (simulatedUs: number) => void;
  /** Fluid mode: chunk transfers from which a lone ring runs on the engine's arithmetic ring (fluid-run.ts). */
  ringFastPathMinTransfers?: number;
  /** Fluid mode: postpone every event to the next multiple of this (ns; default 0, exact). */
  timeQuantumNs?: number;
}

export function runScenario(
  scenario: Scenario,
  options: RunScenarioOptions = {},
): ResultEnvelope<SimMetrics> {
  const mode = options.mode ?? 'packet';
  const seed = options.seed ?? scenario.seed ?? 1;
  const timeQuantumNs = options.timeQuantumNs ?? 0;
  if (timeQuantumNs !== 0 && mode !== 'fluid')
    throw new UsageError(
      'a time quantum applies to fluid mode only: packet mode keeps every event at its time',
    );
  const topology = validateScenario(scenario, locatorOf(scenario), { mode });
  const inputs = {
    scenario: scenario.name,
    mode,
    seed,
    topology: scenario.topology,
    transport: scenario.transport.kind,
    hosts: topology.hostCount,
    ...(timeQuantumNs > 0 ? { timeQuantumNs } : {}),
  };
  const started = performance.now();
  if (mode === 'fluid') {
    const fluid = runFluidScenario(scenario, topology, seed, {
      ringFastPathMinTransfers: options.ringFastPathMinTransfers,
      timeQuantumNs,
      onProgress: options.onProgress,
    });
    const wallS = (performance.now() - started) / 1000;
    return makeResult('sim', inputs, fluid.metrics, {
      series: fluid.series,
      warnings: fluid.warnings,
      timing: { wallSeconds: wallS, peakRssMiB: process.memoryUsage().rss / 2 ** 20 },
    });
  }
  const run = runPacket(scenario, topology, seed, options.onProgress);
  const wallS = (performance.now() - started) / 1000;
  const report = buildPacketReport(run, topology);
  return makeResult('sim', inputs, report.metrics, {
    series: report.series,
    findings: report.findings,
    warnings: report.warnings,
    timing: {
      wallSeconds: wallS,
      eventsPerSecond: wallS > 0 ? run.sim.events / wallS : 0,
      peakRssMiB: process.memoryUsage().rss / 2 ** 20,
    },
  });
}
