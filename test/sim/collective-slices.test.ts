/**
 * Ring collectives cut into slices (`slice:` on an allreduce or allgather workload): slice j of a
 * step waits only for slice j of the step before, as bench tcp's ring pipelines 1 MiB slices
 * (src/bench/ring.ts). One slice per step is the unsliced ring exactly; more slices overlap the
 * steps: each link carries steps x chunk bytes either way, but a step no longer waits out the
 * latency of the one before, so a ring whose step latency is about its serialization gets faster,
 * and every byte still arrives.
 */
import { describe, expect, it } from 'vitest';
import { planWorkloads } from '../../src/sim/plan/index.js';
import { runScenario } from '../../src/sim/index.js';
import { scenarioOf, simulate } from './helpers.js';

const ring = (extra: Record<string, unknown>, kind = 'allreduce'): Record<string, unknown> => ({
  // 1 ms cables: a step's latency (2 ms one way) is about its serialization (256 KiB at 1 Gb/s, 2.1 ms).
  topology: { kind: 'star', hosts: 4, linkRate: '1Gbps', linkDelay: '1ms' },
  switch: { buffer: '4MiB' },
  transport: { kind: 'tcp', tcp: { cc: 'reno' } },
  workloads: [{ kind, size: '1MiB', iterations: 3, ...extra }],
});

const iterationsUs = (raw: Record<string, unknown>): number[] =>
  simulate(raw).run.workloads[0]!.report().metrics.iterationTimeUs as number[];

describe('ring collectives in slices', () => {
  it('the plan cuts each 256 KiB step into ceil(chunk / slice) slices; alltoall and no slice keep one', () => {
    const plan = (extra: Record<string, unknown>, kind?: string) =>
      planWorkloads(scenarioOf(ring(extra, kind)), 4, 1).workloads[0] as { slices: number };
    expect(plan({}).slices).toBe(1);
    expect(plan({ slice: '64KiB' }).slices).toBe(4);
    expect(plan({ slice: '100KiB' }).slices).toBe(3);
    expect(plan({ slice: '1MiB' }).slices).toBe(1);
    expect(plan({ slice: '64KiB' }, 'alltoall').slices).toBe(1);
  });

  it('a slice as large as the step is the unsliced ring, to the picosecond', () => {
    expect(iterationsUs(ring({ slice: '256KiB' }))).toEqual(iterationsUs(ring({})));
  });

  for (const kind of ['allreduce', 'allgather']) {
    it(`${kind}: 8 slices per step hide the steps' latency (25% faster once windows are open) and deliver every byte`, () => {
      const whole = iterationsUs(ring({}, kind));
      const sliced = simulate(ring({ slice: '32KiB' }, kind)).run;
      const report = sliced.workloads[0]!.report();
      const slicedUs = report.metrics.iterationTimeUs as number[];
      expect(sliced.status).toBe('done');
      expect(sliced.sim.deliveredBytes).toBe(sliced.sim.offeredBytes);
      // 3 iterations x 4 ranks x steps x 256 KiB chunks.
      expect(sliced.sim.offeredBytes).toBe(3 * 4 * (kind === 'allreduce' ? 6 : 3) * (1 << 18));
      expect(slicedUs).toHaveLength(3);
      // Each link carries steps x chunk either way. Unsliced, every step also waits out its latency:
      // steps x (chunk / B + L); sliced, the latency is paid about once: steps x chunk / B + L.
      // The first iteration is slow start for both.
      for (let i = 1; i < 3; i++) expect(slicedUs[i]!).toBeLessThan(0.75 * whole[i]!);
    });
  }

  it('fluid mode runs whole steps and says that the slice applies in packet mode only', () => {
    const result = runScenario(scenarioOf(ring({ slice: '128KiB' })), { seed: 1, mode: 'fluid' });
    expect((result.warnings ?? []).some((w) => w.includes('applies in packet mode only'))).toBe(true);
  });
});
