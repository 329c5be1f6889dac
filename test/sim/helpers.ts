/** Shared helpers for the simulator tests: scenarios from plain objects, runs, sampled rates. */
import { scenarioSchema, type Scenario } from '../../src/sim/scenario-schema.js';
import { validateScenario } from '../../src/sim/scenario.js';
import { runPacket, type PacketRun } from '../../src/sim/packet-run.js';
import type { Topology } from '../../src/sim/topo/types.js';

export function scenarioOf(raw: Record<string, unknown>): Scenario {
  return scenarioSchema.parse({ name: 'test', ...raw });
}

export function simulate(
  raw: Record<string, unknown>,
  seed = 1,
): { run: PacketRun; topology: Topology; scenario: Scenario } {
  const scenario = scenarioOf(raw);
  const topology = validateScenario(scenario);
  return { run: runPacket(scenario, topology, seed), topology, scenario };
}

/** Mean delivery rate (bits/s) of connection `conn` between two sampled times. */
export function sampledRateBps(run: PacketRun, conn: number, fromPs: number, toPs: number): number {
  const s = run.sim.sampler;
  const c = s.connCount;
  let i0 = -1;
  let i1 = -1;
  for (let i = 0; i < s.count; i++) {
    const t = s.times[i]!;
    if (i0 < 0 && t >= fromPs) i0 = i;
    if (t <= toPs) i1 = i;
  }
  if (i0 < 0 || i1 <= i0) throw new Error('window holds fewer than two samples');
  const bytes = s.connDelivered[i1 * c + conn]! - s.connDelivered[i0 * c + conn]!;
  return (bytes * 8) / ((s.times[i1]! - s.times[i0]!) / 1e12);
}
