/**
 * `aifabric sim --mode fluid` shows the same progress line as packet mode: runScenario passes its
 * onProgress to the fluid engine, on explicit flows and on the arithmetic ring alike, with the
 * simulated time in microseconds, and the result does not change. Its text names each workload's
 * transfers and when the last ended.
 */
import { describe, expect, it, vi } from 'vitest';
import * as fastPath from '../../src/sim/fluid-ring-fast-path.js';
import { renderSimText } from '../../src/cli/render/sim-text.js';
import { runScenario } from '../../src/sim/run.js';
import { scenarioOf } from './helpers.js';

vi.mock('../../src/sim/fluid-ring-fast-path.js', { spy: true });

// 64 hosts in a shuffled ring (rank r on host 37r mod 64) over an oversubscribed leaf-spine: hops
// collide on the spines, so flows end at scattered times and the run has more batches than the
// 4,096 between two calls. One iteration, so the arithmetic ring can take it.
const scenario = scenarioOf({
  topology: {
    kind: 'leaf-spine',
    hosts: 64,
    hostsPerLeaf: 8,
    spines: 3,
    oversubscription: 2,
    linkRate: '100Gbps',
    linkDelay: '1us',
  },
  switch: { buffer: '1MiB' },
  transport: { kind: 'roce' },
  workloads: [
    {
      kind: 'allreduce',
      size: '16MiB',
      ranks: Array.from({ length: 64 }, (_, r) => (37 * r) % 64),
      transport: 'roce',
    },
  ],
});

describe('fluid mode progress', () => {
  for (const [path, minTransfers] of [
    ['explicit flows', undefined],
    ['the arithmetic ring', 1],
  ] as const) {
    it(`reports the simulated time now and then on ${path}, result unchanged`, () => {
      const fast = vi.mocked(fastPath.runLargeRing);
      fast.mockClear();
      const base = { mode: 'fluid' as const, seed: 3, ringFastPathMinTransfers: minTransfers };
      const seen: number[] = [];
      const watched = runScenario(scenario, { ...base, onProgress: (us) => seen.push(us) });
      const quiet = runScenario(scenario, base);
      expect(watched.metrics).toEqual(quiet.metrics);
      expect(seen.length).toBeGreaterThan(0);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
      expect(seen.at(-1)!).toBeLessThanOrEqual(quiet.metrics.completionTimeUs!);
      expect(fast).toHaveBeenCalledTimes(minTransfers === undefined ? 0 : 2);
    });
  }
});

describe('fluid mode text', () => {
  it('says how many transfers a workload made and when the last was done (not "-/N flows done")', () => {
    const result = runScenario(scenario, { mode: 'fluid', seed: 3 });
    const text = renderSimText(result);
    const us = result.metrics.completionTimeUs!.toLocaleString('en-US', {
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
    });
    // 64 ranks x 2(64 - 1) ring steps.
    expect(text).toContain(`8,064 transfers, the last done at ${us} us`);
    expect(text).not.toMatch(/-\/\d+ flows done/);
  });
});
