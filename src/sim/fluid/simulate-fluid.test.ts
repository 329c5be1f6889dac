import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.js';
import { simulateFluid, type FluidFlow, type FluidLink, type FluidWorkload } from './index.js';

const GBPS = 1e9;
/** Bytes per nanosecond of a rate in Gb/s: 8 Gb/s moves exactly 1 byte per ns. */
const bytesPerNs = (gbps: number): number => gbps / 8;

function finishOf(result: ReturnType<typeof simulateFluid>, id: number): number {
  return result.flows.find((flow) => flow.id === id)!.finishNs;
}

describe('simulateFluid: hand-checked timelines', () => {
  it('runs a lone flow at its path bottleneck, then adds its latency', () => {
    const links: FluidLink[] = [
      { id: 10, capacityBps: 80 * GBPS },
      { id: 11, capacityBps: 40 * GBPS },
    ];
    const result = simulateFluid({
      links,
      flows: [{ id: 1, path: [10, 11], sizeBytes: 5000, latencyNs: 250 }],
    });
    expect(result.completionTimeNs).toBe(5000 / bytesPerNs(40) + 250);
    expect(result.flows).toEqual([{ id: 1, startNs: 0, finishNs: 1250 }]);
  });

  it('splits a link between two flows, then gives all of it to the survivor', () => {
    const links = [{ id: 0, capacityBps: 8 * GBPS }]; // 1 byte/ns
    const result = simulateFluid({
      links,
      flows: [
        { id: 1, path: [0], sizeBytes: 1000 },
        { id: 2, path: [0], sizeBytes: 3000 },
      ],
    });
    // Both at 0.5 B/ns until flow 1 ends at 2000 ns; flow 2 has 2000 B left at 1 B/ns.
    expect(finishOf(result, 1)).toBe(2000);
    expect(finishOf(result, 2)).toBe(4000);
    expect(result.maxConcurrentFlows).toBe(2);
  });

  it('lets a flow capped elsewhere leave its share to the others', () => {
    const links = [
      { id: 0, capacityBps: 80 * GBPS }, // 10 B/ns shared
      { id: 1, capacityBps: 16 * GBPS }, // 2 B/ns caps flow 2
    ];
    const result = simulateFluid({
      links,
      flows: [
        { id: 1, path: [0], sizeBytes: 8000 },
        { id: 2, path: [0, 1], sizeBytes: 2000 },
      ],
    });
    expect(finishOf(result, 1)).toBe(1000); // 8 B/ns
    expect(finishOf(result, 2)).toBe(1000); // 2 B/ns
  });

  it('starts a dependent flow when its dependencies have arrived, and not before its own start time', () => {
    const links = [{ id: 0, capacityBps: 8 * GBPS }];
    const result = simulateFluid({
      links,
      flows: [
        { id: 1, path: [0], sizeBytes: 100, latencyNs: 50 },
        { id: 2, path: [0], sizeBytes: 100, dependsOn: [1] },
        { id: 3, path: [0], sizeBytes: 100, dependsOn: [1], startTimeNs: 400 },
      ],
    });
    const byId = new Map(result.flows.map((flow) => [flow.id, flow]));
    expect(byId.get(2)!.startNs).toBe(150);
    expect(byId.get(2)!.finishNs).toBe(250);
    expect(byId.get(3)!.startNs).toBe(400);
    expect(result.completionTimeNs).toBe(500);
    // 3 starts + 3 ends + one recomputation per batch that changed the network (0, 100, 150, 250, 400).
    expect(result.events).toBe(6 + result.rateRecomputations);
  });

  it('starts a sentAfter flow when its predecessor has sent its last byte, before that byte arrives', () => {
    const links = [
      { id: 0, capacityBps: 8 * GBPS },
      { id: 1, capacityBps: 8 * GBPS },
    ];
    const result = simulateFluid({
      links,
      flows: [
        { id: 1, path: [0], sizeBytes: 100, latencyNs: 50 },
        { id: 2, path: [0], sizeBytes: 100, latencyNs: 50, sentAfter: [1] }, // same connection
        { id: 3, path: [1], sizeBytes: 100, dependsOn: [1], sentAfter: [2] },
      ],
    });
    const byId = new Map(result.flows.map((flow) => [flow.id, flow]));
    expect(byId.get(2)).toEqual({ id: 2, startNs: 100, finishNs: 250 });
    expect(byId.get(3)).toEqual({ id: 3, startNs: 200, finishNs: 300 }); // waits for both kinds
  });

  it('passes zero-byte flows straight to their latency and releases dependents', () => {
    const result = simulateFluid({
      links: [{ id: 0, capacityBps: 8 * GBPS }],
      flows: [
        { id: 1, path: [], sizeBytes: 0, latencyNs: 30 },
        { id: 2, path: [0], sizeBytes: 10, dependsOn: [1] },
      ],
    });
    expect(finishOf(result, 2)).toBe(40);
  });

  it('leaves per-flow timings out when asked, and nothing else changes', () => {
    const links = [{ id: 0, capacityBps: 8 * GBPS }];
    const flows = [1, 2, 3].map((id) => ({ id, path: [0], sizeBytes: id * 100 }));
    const full = simulateFluid({ links, flows });
    const lean = simulateFluid({ links, flows }, { recordFlows: false });
    expect(lean.flows).toEqual([]);
    expect({ ...lean, flows: full.flows }).toEqual(full);
  });

  it('reports progress in simulated time now and then, and nothing else changes', () => {
    // A chain of 10,000 flows, each starting when the previous has arrived: one batch per event.
    const links = [{ id: 0, capacityBps: 8 * GBPS }];
    const flows: FluidFlow[] = Array.from({ length: 10_000 }, (_, i) => ({
      id: i,
      path: [0],
      sizeBytes: 100,
      latencyNs: 5,
      dependsOn: i > 0 ? [i - 1] : [],
    }));
    const seen: number[] = [];
    const watched = simulateFluid({ links, flows }, { onProgress: (ns) => seen.push(ns) });
    expect(watched).toEqual(simulateFluid({ links, flows }));
    // 20,000 batches (a finish and an arrival per flow): a call every 4,096 of them.
    expect(seen).toHaveLength(4);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    expect(seen.at(-1)!).toBeLessThan(watched.completionTimeNs);
  });

  it('is deterministic', () => {
    const links = [0, 1, 2].map((id) => ({ id, capacityBps: (id + 1) * 10 * GBPS }));
    const flows: FluidFlow[] = Array.from({ length: 40 }, (_, i) => ({
      id: i,
      path: [i % 3, (i + 1) % 3],
      sizeBytes: 1000 + 37 * i,
      startTimeNs: (i * 13) % 50,
      dependsOn: i >= 5 ? [i - 5] : [],
      sentAfter: i >= 3 ? [i - 3] : [],
    }));
    expect(simulateFluid({ links, flows })).toEqual(simulateFluid({ links, flows }));
  });
});

describe('simulateFluid: input errors', () => {
  const links = [{ id: 0, capacityBps: GBPS }];
  const run = (input: Parameters<typeof simulateFluid>[0]) => () => simulateFluid(input);

  it('names an unknown link id', () => {
    expect(run({ links, flows: [{ id: 4, path: [0, 9], sizeBytes: 1 }] })).toThrow(
      /flow 4: path uses unknown link id 9/,
    );
  });

  it('rejects a non-positive capacity', () => {
    expect(run({ links: [{ id: 0, capacityBps: 0 }], flows: [] })).toThrow(
      /link 0: capacityBps 0 is not a positive/,
    );
    expect(run({ links: [{ id: 0, capacityBps: -5 }], flows: [] })).toThrow(InputError);
  });

  it('prints the cycle in dependsOn', () => {
    const flows = [
      { id: 1, path: [0], sizeBytes: 1 },
      { id: 2, path: [0], sizeBytes: 1, dependsOn: [1, 4] },
      { id: 3, path: [0], sizeBytes: 1, dependsOn: [2] },
      { id: 4, path: [0], sizeBytes: 1, dependsOn: [3] },
    ];
    expect(run({ links, flows })).toThrow(
      /cycle: flow (2|3|4) waits on flow \d waits on flow \d waits on flow \1/,
    );
  });

  it('rejects bad sizes, unknown dependencies, duplicate ids and a link crossed twice', () => {
    expect(run({ links, flows: [{ id: 1, path: [0], sizeBytes: -1 }] })).toThrow(/flow 1: sizeBytes -1/);
    expect(run({ links, flows: [{ id: 1, path: [0], sizeBytes: 1, dependsOn: [7] }] })).toThrow(
      /dependsOn 7 is not a flow id/,
    );
    expect(
      run({
        links,
        flows: [
          { id: 1, path: [0], sizeBytes: 1 },
          { id: 1, path: [0], sizeBytes: 1 },
        ],
      }),
    ).toThrow(/duplicate flow id 1/);
    expect(run({ links, flows: [{ id: 1, path: [0, 0], sizeBytes: 1 }] })).toThrow(/crosses link 0 twice/);
    expect(run({ links, flows: [{ id: 1, path: [], sizeBytes: 1 }] })).toThrow(/empty path/);
  });

  it('detects a cycle in a compact workload when its flows never become ready', () => {
    // Two flows that wait on each other, described only through the FluidWorkload interface.
    const waitingOnEachOther: FluidWorkload = {
      flowCount: 2,
      pathOffsets: Int32Array.from([0, 1]),
      pathLinkIds: Int32Array.from([0]),
      maxDependencies: 1,
      maxDependents: 1,
      flowIdOf: (flow) => 100 + flow,
      pathOf: () => 0,
      sizeBytesOf: () => 1,
      latencyNsOf: () => 0,
      startTimeNsOf: () => 0,
      dependencyCountOf: () => 1,
      dependentsOf: (flow, out) => {
        out[0] = 1 - flow;
        return 1;
      },
      sentDependentsOf: () => 0,
    };
    expect(() => simulateFluid({ links, workload: waitingOnEachOther })).toThrow(
      /2 flows never started: .*cycle \(for example flow 100\)/,
    );
  });

  it('throws InputError, which the CLI maps to exit code 2', () => {
    try {
      simulateFluid({ links, flows: [{ id: 1, path: [3], sizeBytes: 1 }] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).exitCode).toBe(2);
    }
  });
});

/** Random acyclic workloads: a flow may only depend on flows listed before it. */
const workload = fc
  .record({
    capacitiesGbps: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 6 }),
    flows: fc.array(
      fc.record({
        linkSeeds: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        sizeBytes: fc.integer({ min: 0, max: 1_000_000 }),
        startTimeNs: fc.integer({ min: 0, max: 50_000 }),
        latencyNs: fc.integer({ min: 0, max: 5_000 }),
        depSeeds: fc.array(fc.nat(), { maxLength: 3 }),
        sentSeeds: fc.array(fc.nat(), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 30 },
    ),
  })
  .map(({ capacitiesGbps, flows }) => ({
    links: capacitiesGbps.map((gbps, id) => ({ id, capacityBps: gbps * GBPS })),
    flows: flows.map((flow, i) => ({
      id: i,
      path: [...new Set(flow.linkSeeds.map((s) => s % capacitiesGbps.length))],
      sizeBytes: flow.sizeBytes,
      startTimeNs: flow.startTimeNs,
      latencyNs: flow.latencyNs,
      dependsOn: i === 0 ? [] : [...new Set(flow.depSeeds.map((s) => s % i))],
      sentAfter: i === 0 ? [] : [...new Set(flow.sentSeeds.map((s) => s % i))],
    })),
  }));

describe('simulateFluid: properties', () => {
  it('finishes every flow no sooner than its size over its bottleneck, after its start time and dependencies', () => {
    fc.assert(
      fc.property(workload, ({ links, flows }) => {
        const result = simulateFluid({ links, flows });
        expect(result.flows).toHaveLength(flows.length);
        const timing = new Map(result.flows.map((f) => [f.id, f]));
        for (const flow of flows) {
          const { startNs, finishNs } = timing.get(flow.id)!;
          const bottleneck = Math.min(...flow.path.map((id) => bytesPerNs(links[id]!.capacityBps / GBPS)));
          const alone = flow.sizeBytes / bottleneck + flow.latencyNs;
          expect(finishNs).toBeGreaterThanOrEqual(startNs + alone - 1e-6 - 1e-12 * finishNs);
          expect(startNs).toBeGreaterThanOrEqual(flow.startTimeNs - 1e-6);
          for (const dep of flow.dependsOn)
            expect(startNs).toBeGreaterThanOrEqual(timing.get(dep)!.finishNs - 1e-6);
          // A sentAfter predecessor's last byte left at its arrival minus its latency.
          for (const dep of flow.sentAfter)
            expect(startNs).toBeGreaterThanOrEqual(timing.get(dep)!.finishNs - flows[dep]!.latencyNs - 1e-6);
          // Started as soon as the last dependency was met (or at its start time): never idle for nothing.
          const readyNs = Math.max(
            flow.startTimeNs,
            ...flow.dependsOn.map((dep) => timing.get(dep)!.finishNs),
            ...flow.sentAfter.map((dep) => timing.get(dep)!.finishNs - flows[dep]!.latencyNs),
          );
          expect(startNs).toBeLessThanOrEqual(readyNs + 1e-6 + 1e-12 * readyNs);
        }
        expect(result.completionTimeNs).toBe(Math.max(...result.flows.map((f) => f.finishNs)));
        expect(result.totalBytes).toBe(flows.reduce((sum, f) => sum + f.sizeBytes, 0));
      }),
      { numRuns: 200 },
    );
  });

  it('never takes longer on a single bottleneck when that bottleneck gets more capacity', () => {
    const singleBottleneck = fc.record({
      accessGbps: fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 12 }),
      sizes: fc.array(fc.integer({ min: 1, max: 2_000_000 }), { minLength: 12, maxLength: 12 }),
      starts: fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 12, maxLength: 12 }),
      sharedGbps: fc.integer({ min: 1, max: 400 }),
      extraGbps: fc.integer({ min: 0, max: 400 }),
    });
    fc.assert(
      fc.property(singleBottleneck, ({ accessGbps, sizes, starts, sharedGbps, extraGbps }) => {
        const run = (gbps: number) =>
          simulateFluid({
            links: [
              { id: 0, capacityBps: gbps * GBPS },
              ...accessGbps.map((g, i) => ({ id: i + 1, capacityBps: g * GBPS })),
            ],
            flows: accessGbps.map((_, i) => ({
              id: i,
              path: [i + 1, 0],
              sizeBytes: sizes[i]!,
              startTimeNs: starts[i]!,
            })),
          }).completionTimeNs;
        const before = run(sharedGbps);
        expect(run(sharedGbps + extraGbps)).toBeLessThanOrEqual(before * (1 + 1e-12) + 1e-6);
      }),
      { numRuns: 200 },
    );
  });
});

describe('simulateFluid: time quantum', () => {
  it('holds a finished flow on its share until the next grid point (hand-checked)', () => {
    const links = [{ id: 0, capacityBps: 8 * GBPS }]; // 1 byte/ns
    const flows = [
      { id: 1, path: [0], sizeBytes: 1000 },
      { id: 2, path: [0], sizeBytes: 3000 },
    ];
    const result = simulateFluid({ links, flows }, { timeQuantumNs: 300 });
    // Exact: flow 1 ends at 2000. On a 300 ns grid it leaves at 2100, so flow 2 sends 1050 B at
    // 0.5 B/ns, then 1950 B alone: its last byte at 4050, on the grid at 4200.
    expect(finishOf(result, 1)).toBe(2100);
    expect(finishOf(result, 2)).toBe(4200);
  });

  it('is exact with a quantum of 0, and rejects a negative or non-finite one', () => {
    const links = [0, 1].map((id) => ({ id, capacityBps: (id + 1) * 10 * GBPS }));
    const flows: FluidFlow[] = Array.from({ length: 12 }, (_, i) => ({
      id: i,
      path: [i % 2, (i + 1) % 2],
      sizeBytes: 1000 + 37 * i,
      startTimeNs: (i * 13) % 50,
      dependsOn: i >= 4 ? [i - 4] : [],
    }));
    expect(simulateFluid({ links, flows }, { timeQuantumNs: 0 })).toEqual(simulateFluid({ links, flows }));
    for (const bad of [-1, Number.NaN, Infinity])
      expect(() => simulateFluid({ links, flows }, { timeQuantumNs: bad })).toThrow(InputError);
  });

  it('puts every start and finish on the grid, no earlier than its dependencies allow, bytes conserved', () => {
    fc.assert(
      fc.property(workload, fc.integer({ min: 1, max: 2_000 }), ({ links, flows }, quantumNs) => {
        const exact = simulateFluid({ links, flows });
        const result = simulateFluid({ links, flows }, { timeQuantumNs: quantumNs });
        const onGrid = (ns: number) => Math.abs(ns / quantumNs - Math.round(ns / quantumNs)) < 1e-9;
        const timing = new Map(result.flows.map((f) => [f.id, f]));
        for (const flow of flows) {
          const { startNs, finishNs } = timing.get(flow.id)!;
          expect(onGrid(startNs) && onGrid(finishNs)).toBe(true);
          const bottleneck = Math.min(...flow.path.map((id) => bytesPerNs(links[id]!.capacityBps / GBPS)));
          expect(finishNs).toBeGreaterThanOrEqual(
            startNs + flow.sizeBytes / bottleneck + flow.latencyNs - 1e-6,
          );
          expect(startNs).toBeGreaterThanOrEqual(flow.startTimeNs);
          for (const dep of flow.dependsOn) expect(startNs).toBeGreaterThanOrEqual(timing.get(dep)!.finishNs);
        }
        expect(result.totalBytes).toBe(exact.totalBytes);
        expect(result.flowCount).toBe(exact.flowCount);
      }),
      { numRuns: 200 },
    );
  });
});
