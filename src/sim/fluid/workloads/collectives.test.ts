import { describe, expect, it } from 'vitest';
import {
  buildAllToAll,
  buildHierarchicalAllReduce,
  buildPermutation,
  buildRingAllGather,
  buildRingAllReduce,
  buildRingReduceScatter,
  fabricFromTopology,
  simulateFluid,
  workloadToFlows,
  type CollectiveFabric,
} from '../index.js';

const GIB = 2 ** 30;

/** One switch, host h has uplink 2h and downlink 2h+1 of `rateBps`: no link is ever shared by a ring. */
function star(hosts: number, rateBps: number, latencyNs: number): CollectiveFabric {
  const links = Array.from({ length: 2 * hosts }, (_, id) => ({ id, capacityBps: rateBps }));
  return { links, path: (src, dst) => [2 * src, 2 * dst + 1], hostCount: hosts, networkLatencyNs: latencyNs };
}

/** Longest path through the ring's dependency graph when every chunk has its links to itself. */
function ringSchedule(
  ranks: number,
  steps: number,
  hop: (rank: number) => { sendNs: number; latencyNs: number },
): number {
  let sent = new Float64Array(ranks);
  let arrived = new Float64Array(ranks);
  for (let s = 0; s < steps; s++) {
    const nextSent = new Float64Array(ranks);
    const nextArrived = new Float64Array(ranks);
    for (let r = 0; r < ranks; r++) {
      const startNs = s === 0 ? 0 : Math.max(arrived[(r - 1 + ranks) % ranks]!, sent[r]!);
      const { sendNs, latencyNs } = hop(r);
      nextSent[r] = startNs + sendNs;
      nextArrived[r] = nextSent[r]! + latencyNs;
    }
    sent = nextSent;
    arrived = nextArrived;
  }
  return Math.max(...arrived);
}

function expectRelative(actual: number, expected: number, tolerance = 1e-9): void {
  expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(tolerance);
}

describe('ring collectives on an uncongested star match the alpha-beta ring time', () => {
  const rateBps = 100e9;
  const bytesPerNs = rateBps / 8e9;
  const latencyNs = 1500;

  for (const ranks of [2, 3, 8, 16]) {
    it(`all_reduce over ${ranks} ranks: 2(R-1)/R x S/B + 2(R-1) x latency`, () => {
      const sizeBytes = 64 * 2 ** 20 + 7; // not a multiple of R: chunks are fractional bytes
      const result = simulateFluid(buildRingAllReduce(star(ranks, rateBps, latencyNs), { ranks, sizeBytes }));
      const expected = ((2 * (ranks - 1)) / ranks) * (sizeBytes / bytesPerNs) + 2 * (ranks - 1) * latencyNs;
      expectRelative(result.completionTimeNs, expected);
      expect(result.flowCount).toBe(2 * (ranks - 1) * ranks);
      expect(result.maxConcurrentFlows).toBe(ranks);
    });
  }

  it('degenerate sizes: one rank has nothing to do; zero bytes leave only the 2(R-1) latencies', () => {
    expect(
      simulateFluid(buildRingAllReduce(star(1, rateBps, latencyNs), { ranks: 1, sizeBytes: GIB }))
        .completionTimeNs,
    ).toBe(0);
    const empty = simulateFluid(buildRingAllReduce(star(4, rateBps, latencyNs), { ranks: 4, sizeBytes: 0 }));
    expect(empty.completionTimeNs).toBe(2 * 3 * latencyNs);
  });

  it('all_gather and reduce_scatter take R-1 steps', () => {
    const ranks = 8;
    const sizeBytes = GIB;
    const expected = ((ranks - 1) / ranks) * (sizeBytes / bytesPerNs) + (ranks - 1) * latencyNs;
    for (const build of [buildRingAllGather, buildRingReduceScatter]) {
      const result = simulateFluid(build(star(ranks, rateBps, latencyNs), { ranks, sizeBytes }));
      expectRelative(result.completionTimeNs, expected);
    }
  });

  it('hierarchical nodes: NVLink inside nodes, the network between them, each connection streaming its chunks', () => {
    const nodes = 4;
    const gpusPerNode = 8;
    const ranks = nodes * gpusPerNode;
    const sizeBytes = 2 ** 20; // small chunks, so latencies matter
    const nvlinkCapacityBps = 3.6e12;
    const nvlinkLatencyNs = 200;
    const fabric = { ...star(nodes, rateBps, latencyNs), gpusPerNode, nvlinkCapacityBps, nvlinkLatencyNs };
    const input = buildRingAllReduce(fabric, { ranks, sizeBytes });
    expect(input.links).toHaveLength(2 * nodes + 2 * ranks); // every GPU gets NVLink egress and ingress
    const result = simulateFluid(input, { recordFlows: false });
    // No two chunks ever share a link here, so the run must equal the contention-free schedule of
    // the dependency graph: a chunk starts when its input has arrived and its connection's
    // previous chunk has been sent.
    const crossesNetwork = (r: number) => (r + 1) % gpusPerNode === 0;
    const schedule = ringSchedule(ranks, 2 * (ranks - 1), (r) => {
      const network = crossesNetwork(r);
      const sendNs = sizeBytes / ranks / (network ? bytesPerNs : nvlinkCapacityBps / 8e9);
      return { sendNs, latencyNs: network ? latencyNs : nvlinkLatencyNs };
    });
    expectRelative(result.completionTimeNs, schedule);
    // Streaming pays the network latency once, not once per step as a lock-step ring would.
    const lockStepNs = 2 * (ranks - 1) * (sizeBytes / ranks / bytesPerNs + latencyNs);
    expect(result.completionTimeNs).toBeLessThan(lockStepNs * 0.8);
  });

  it('gives the same timings through the FluidFlow[] form as through the compact form', () => {
    const fabric = { ...star(2, rateBps, latencyNs), gpusPerNode: 2, nvlinkCapacityBps: 1e12 };
    const input = buildRingAllReduce(fabric, { ranks: 4, sizeBytes: 1e6 });
    const compact = simulateFluid(input);
    const expanded = simulateFluid({ links: input.links, flows: workloadToFlows(input.workload) });
    expect(expanded.flows).toEqual(compact.flows);
    expect(expanded.completionTimeNs).toBe(compact.completionTimeNs);
  });
});

describe('hierarchical all_reduce', () => {
  const rateBps = 8e9; // 1 byte per ns
  const latencyNs = 700;
  const nvlinkCapacityBps = 8e10; // 10 bytes per ns
  const nvlinkLatencyNs = 90;
  const fabricOf = (nodes: number, gpusPerNode: number): CollectiveFabric => ({
    ...star(nodes, rateBps, latencyNs),
    gpusPerNode,
    nvlinkCapacityBps,
    nvlinkLatencyNs,
  });

  it('on an uncontended star: 2(G-1) NVLink steps of S/G and 2(N-1) network steps of S/(GN) at a 1/G share', () => {
    for (const [nodes, gpus] of [
      [4, 4],
      [3, 8],
      [5, 2],
    ] as const) {
      const sizeBytes = 3 * 2 ** 20;
      const input = buildHierarchicalAllReduce(fabricOf(nodes, gpus), { ranks: nodes * gpus, sizeBytes });
      expect(input.workload.flowCount).toBe(2 * nodes * gpus * (gpus - 1) + gpus * nodes * 2 * (nodes - 1));
      const result = simulateFluid(input, { recordFlows: false });
      const intraNs = 2 * (gpus - 1) * (sizeBytes / gpus / (nvlinkCapacityBps / 8e9) + nvlinkLatencyNs);
      // The G rings of a node share its uplink: each chunk of S/(GN) gets B/G.
      const interNs = 2 * (nodes - 1) * (sizeBytes / (gpus * nodes) / (rateBps / 8e9 / gpus) + latencyNs);
      expectRelative(result.completionTimeNs, intraNs + interNs);
    }
  });

  it('one GPU per node is the ring across nodes; one node is the ring inside it', () => {
    const sizeBytes = 2 ** 20;
    const acrossNodes = { ...star(6, rateBps, latencyNs) };
    expect(
      simulateFluid(buildHierarchicalAllReduce(acrossNodes, { ranks: 6, sizeBytes })).completionTimeNs,
    ).toBe(simulateFluid(buildRingAllReduce(acrossNodes, { ranks: 6, sizeBytes })).completionTimeNs);
    const oneNode = fabricOf(1, 8);
    expectRelative(
      simulateFluid(buildHierarchicalAllReduce(oneNode, { ranks: 8, sizeBytes })).completionTimeNs,
      simulateFluid(buildRingAllReduce(oneNode, { ranks: 8, sizeBytes })).completionTimeNs,
    );
    expect(buildHierarchicalAllReduce(fabricOf(1, 1), { ranks: 1, sizeBytes }).workload.flowCount).toBe(0);
  });

  it('every flow runs once and the compact form equals the FluidFlow[] form', () => {
    const input = buildHierarchicalAllReduce(fabricOf(3, 4), { ranks: 12, sizeBytes: 1e6 });
    const compact = simulateFluid(input);
    const expanded = simulateFluid({ links: input.links, flows: workloadToFlows(input.workload) });
    expect(compact.flows).toHaveLength(input.workload.flowCount);
    expect(expanded.flows).toEqual(compact.flows);
    // The first inter-node chunk of a GPU leaves only after its reduce-scatter chunk has arrived.
    const aCount = 3 * 4 * 3;
    const firstInter = compact.flows[aCount]!;
    expect(firstInter.startNs).toBeGreaterThan(0);
  });
});

describe('alltoall and permutation', () => {
  const rateBps = 8e9; // 1 byte per ns
  it('alltoall on a star: every uplink carries R-1 flows at B/(R-1), all ending together', () => {
    const ranks = 6;
    const sizeBytes = 6e6;
    const result = simulateFluid(buildAllToAll(star(ranks, rateBps, 100), { ranks, sizeBytes }));
    expect(result.flowCount).toBe(ranks * (ranks - 1));
    expect(result.maxConcurrentFlows).toBe(ranks * (ranks - 1));
    expectRelative(result.completionTimeNs, ((ranks - 1) / ranks) * sizeBytes + 100);
  });

  it('permutation on a star: each flow alone at full rate; a seeded derangement is reproducible', () => {
    const input = { ranks: 8, sizeBytes: 1e6, seed: 7 };
    const first = buildPermutation(star(8, rateBps, 0), input);
    const again = buildPermutation(star(8, rateBps, 0), input);
    expect(first.workload.dstRank).toEqual(again.workload.dstRank);
    expect(first.workload.flowCount).toBe(8);
    first.workload.srcRank.forEach((src, f) => expect(first.workload.dstRank[f]).not.toBe(src));
    expect(simulateFluid(first).completionTimeNs).toBe(1e6);
  });

  it('ECMP collision: two cross-leaf flows hashed onto one spine get half of its uplink each', () => {
    // Hosts 0,1 on leaf A and 2,3 on leaf B. Links: 0-3 host up, 4-7 host down, 8/9 A->spine 0/1,
    // 10/11 spine 0/1->B, 12/13 B->spine 0/1, 14/15 spine 0/1->A.
    const links = Array.from({ length: 16 }, (_, id) => ({ id, capacityBps: rateBps }));
    const leafSpine = (spineOf: (src: number) => number): CollectiveFabric => ({
      links,
      path: (src, dst) => {
        const spine = spineOf(src);
        return src < 2 ? [src, 8 + spine, 10 + spine, 4 + dst] : [src, 12 + spine, 14 + spine, 4 + dst];
      },
    });
    const input = { ranks: 4, sizeBytes: 1e6, permutation: [2, 3, 0, 1] };
    expect(
      simulateFluid(
        buildPermutation(
          leafSpine(() => 0),
          input,
        ),
      ).completionTimeNs,
    ).toBe(2e6);
    expect(
      simulateFluid(
        buildPermutation(
          leafSpine((src) => src % 2),
          input,
        ),
      ).completionTimeNs,
    ).toBe(1e6);
  });
});

describe('fabricFromTopology', () => {
  it('turns link rates into capacities and adds alpha plus every link delay on the path as latency', () => {
    const topology = {
      hostCount: 4,
      links: Array.from({ length: 8 }, (_, id) => ({ id, rateBps: 8e9, delayNs: 100 })),
      route: (src: number, dst: number) => [2 * src, 2 * dst + 1],
    };
    const fabric = fabricFromTopology(topology, { alphaNs: 1000 });
    const result = simulateFluid(buildRingAllReduce(fabric, { ranks: 4, sizeBytes: 4e6 }));
    expectRelative(result.completionTimeNs, 2 * 3 * (1e6 + 1000 + 200));
  });
});

describe('workload input errors', () => {
  const fabric = star(4, 1e9, 0);
  it('rejects ranks that do not fill whole nodes, more nodes than hosts, and NVLink without a rate', () => {
    expect(() =>
      buildRingAllReduce({ ...fabric, gpusPerNode: 8, nvlinkCapacityBps: 1e12 }, { ranks: 12, sizeBytes: 1 }),
    ).toThrow(/not a whole number of 8-GPU nodes/);
    expect(() => buildRingAllReduce(fabric, { ranks: 5, sizeBytes: 1 })).toThrow(
      /need 5 nodes but the fabric has 4 hosts/,
    );
    expect(() => buildRingAllReduce({ ...fabric, gpusPerNode: 2 }, { ranks: 4, sizeBytes: 1 })).toThrow(
      /nvlinkCapacityBps/,
    );
  });

  it('rejects a permutation that sends two ranks to one', () => {
    expect(() => buildPermutation(fabric, { ranks: 4, sizeBytes: 1, permutation: [1, 1, 2, 3] })).toThrow(
      /rank 1 is the destination twice/,
    );
  });
});

describe('a time quantum delays a ring by at most two quanta a step', () => {
  it('all_reduce over 8 ranks on an uncongested star: exact <= quantised <= exact + 2 q x steps', () => {
    const ranks = 8;
    const fabric = star(ranks, 100e9, 1500);
    const input = buildRingAllReduce(fabric, { ranks, sizeBytes: 64 * 2 ** 20 + 7 });
    const exact = simulateFluid(input).completionTimeNs;
    const steps = 2 * (ranks - 1);
    for (const quantumNs of [1, 100, 1000, 10_000]) {
      const late = simulateFluid(input, { timeQuantumNs: quantumNs }).completionTimeNs - exact;
      expect(late).toBeGreaterThanOrEqual(0);
      // Each step waits for a finish and an arrival on the grid, plus the start at time 0.
      expect(late).toBeLessThanOrEqual(2 * quantumNs * steps + quantumNs);
    }
  });
});
