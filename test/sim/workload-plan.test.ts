/**
 * One workload plan for both engines: packet mode opens exactly the plan's connections in the
 * plan's order (so connection k has one ECMP hash, and one path, in both modes); fluid mode's
 * explicit flows follow packet mode's dependency rules; and the fluid fast path for large rings,
 * reached here by lowering its threshold, gives the explicit flows' result on shapes both run.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as fastPath from '../../src/sim/fluid-ring-fast-path.js';
import * as planFlows from '../../src/sim/fluid-plan-flows.js';
import { fluidNetwork } from '../../src/sim/fluid-network.js';
import { buildWorkloads, runPacket } from '../../src/sim/packet-run.js';
import { planWorkloads } from '../../src/sim/plan/index.js';
import { runScenario } from '../../src/sim/run.js';
import { loadScenario, validateScenario } from '../../src/sim/scenario.js';
import type { Simulator } from '../../src/sim/simulator.js';
import type { Connection } from '../../src/sim/transport/connection.js';
import { scenarioOf } from './helpers.js';

vi.mock('../../src/sim/fluid-ring-fast-path.js', { spy: true });
vi.mock('../../src/sim/fluid-plan-flows.js', { spy: true });

const DIR = join(import.meta.dirname, '..', '..', 'examples', 'scenarios');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** The (src, dst) pairs packet mode's workloads open, in order, without running anything. */
function packetConnections(file: string, seed: number): { src: number; dst: number }[] {
  const scenario = loadScenario(join(DIR, file));
  const topology = validateScenario(scenario);
  const opened: { src: number; dst: number }[] = [];
  const sim = { at: () => undefined } as unknown as Simulator;
  for (const w of buildWorkloads(planWorkloads(scenario, topology.hostCount, seed))) {
    w.start(sim, (src, dst) => {
      opened.push({ src, dst });
      return {} as Connection;
    });
  }
  return opened;
}

describe('WorkloadPlan', () => {
  for (const file of files) {
    it(`${file}: packet mode opens the plan's connections in the plan's order`, () => {
      const scenario = loadScenario(join(DIR, file));
      const plan = planWorkloads(scenario, validateScenario(scenario).hostCount, 2);
      expect(plan.connections.length).toBeGreaterThan(0);
      expect(packetConnections(file, 2)).toEqual(plan.connections);
    });
  }

  it('gives connection k the same path in both modes (ECMP over 4 spines)', () => {
    const scenario = scenarioOf({
      topology: {
        kind: 'leaf-spine',
        hosts: 16,
        hostsPerLeaf: 4,
        spines: 4,
        linkRate: '100Gbps',
        linkDelay: '1us',
      },
      switch: { buffer: '1MiB' },
      transport: { kind: 'roce' },
      workloads: [
        { kind: 'permutation', size: '16KiB' },
        { kind: 'allgather', size: '64KiB', ranks: 8 },
      ],
      sim: { maxTime: '1us' },
    });
    const topology = validateScenario(scenario);
    const seed = 7;
    const packet = runPacket(scenario, topology, seed);
    const network = fluidNetwork(scenario, topology, planWorkloads(scenario, topology.hostCount, seed));
    const spines = new Set<number>();
    packet.sim.connections.forEach((conn, k) => {
      const path = network.routeOf(k).path;
      expect(path).toEqual(Array.from(conn.forward));
      if (path.length === 4) spines.add(path[1]!);
    });
    expect(packet.sim.connections).toHaveLength(24);
    expect(spines.size).toBeGreaterThan(1);
  });

  it('alltoall: a rank waits for the chunks into it and its own previous send; the last iteration carries no compute', () => {
    const scenario = scenarioOf({
      topology: { kind: 'star', hosts: 3, linkRate: '100Gbps', linkDelay: '1us' },
      switch: { buffer: '1MiB' },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'alltoall', size: '3KiB', iterations: 2, compute: { mean: '10us' } }],
    });
    const topology = validateScenario(scenario);
    const plan = planWorkloads(scenario, topology.hostCount, 1);
    const { flows } = planFlows.planToFluidFlows(plan, () => ({ path: [0], latencyNs: 100 }));
    // Iteration 0 is flows 0..5 (rank 0 -> 1, 2; rank 1 -> 0, 2; rank 2 -> 0, 1), iteration 1 flows 6..11.
    expect(flows).toHaveLength(12);
    const into1 = [0, 5]; // 0 -> 1 and 2 -> 1
    for (const f of [8, 9]) expect(flows[f]?.dependsOn).toEqual(into1); // rank 1's second iteration
    expect(flows[8]?.sentAfter).toEqual([2]);
    for (const f of flows.slice(0, 6)) expect(f.latencyNs).toBe(100 + 10_000);
    for (const f of flows.slice(6)) expect(f.latencyNs).toBe(100);
  });

  it("ring: a chunk waits for its predecessor's previous chunk to arrive and its own previous chunk to be sent", () => {
    const scenario = scenarioOf({
      topology: { kind: 'star', hosts: 3, linkRate: '100Gbps', linkDelay: '1us' },
      switch: { buffer: '1MiB' },
      transport: { kind: 'roce' },
      workloads: [{ kind: 'allreduce', size: '3KiB', iterations: 2 }],
    });
    const plan = planWorkloads(scenario, 3, 1);
    const { flows } = planFlows.planToFluidFlows(plan, () => ({ path: [0], latencyNs: 0 }));
    expect(flows).toHaveLength(2 * 4 * 3);
    // Step 1, rank 1 (flow 4): input from rank 0's step 0 (flow 0), after its own step 0 (flow 1).
    expect(flows[4]).toMatchObject({ dependsOn: [0], sentAfter: [1] });
    // Iteration 1, step 0, rank 0 (flow 12): after the last chunk into rank 0 (rank 2's, flow 11) and its own last send (flow 9).
    expect(flows[12]).toMatchObject({ dependsOn: [11], sentAfter: [9] });
  });
});

describe('fluid fast path for large rings', () => {
  const shapes: [string, Record<string, unknown>][] = [
    [
      'all_reduce, 16 hosts, leaf-spine with ECMP, RoCE, chunks rounded up',
      { kind: 'allreduce', size: 1_000_001 },
    ],
    [
      'all_gather, 12 of 16 hosts in a shuffled order, TCP',
      { kind: 'allgather', size: '3MiB', ranks: [5, 3, 9, 0, 14, 7, 1, 12, 10, 2, 15, 6], transport: 'tcp' },
    ],
  ];
  for (const [name, workload] of shapes) {
    it(`${name}: the arithmetic ring gives the explicit flows' metrics`, () => {
      const scenario = scenarioOf({
        topology: {
          kind: 'leaf-spine',
          hosts: 16,
          hostsPerLeaf: 4,
          spines: 3,
          oversubscription: 2,
          linkRate: '100Gbps',
          linkDelay: '1us',
        },
        switch: { buffer: '1MiB' },
        transport: { kind: 'roce' },
        workloads: [workload],
      });
      vi.mocked(fastPath.runLargeRing).mockClear();
      vi.mocked(planFlows.planToFluidFlows).mockClear();
      const explicit = runScenario(scenario, { mode: 'fluid', seed: 3 });
      expect(fastPath.runLargeRing).not.toHaveBeenCalled();
      expect(planFlows.planToFluidFlows).toHaveBeenCalledTimes(1);
      const fast = runScenario(scenario, { mode: 'fluid', seed: 3, ringFastPathMinTransfers: 1 });
      expect(fastPath.runLargeRing).toHaveBeenCalledTimes(1);
      expect(planFlows.planToFluidFlows).toHaveBeenCalledTimes(1);
      expect(explicit.metrics.flowCount).toBeGreaterThan(100);
      expect(fast.metrics).toEqual(explicit.metrics);
    });
  }
});
