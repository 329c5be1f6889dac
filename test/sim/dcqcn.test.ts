/**
 * Acceptance: DCQCN with the paper's parameters (Zhu et al., SIGCOMM 2015: Kmin 5 KB, Kmax 200 KB,
 * Pmax 1%, g 1/256, 55 us timers, 10 MB byte counter, F 5) brings 2 to 8 long flows on one
 * bottleneck to within 10% of their fair share, with the queue held between Kmin and Kmax.
 */
import { describe, expect, it } from 'vitest';
import { roceWireBytes } from '../../src/sim/net/wire.js';
import { sampledRateBps, simulate } from './helpers.js';

const KMIN = 5_000;
const KMAX = 200_000;

function fairness(flows: number, seed: number) {
  // About 200 ms of a shared 100 Gb/s port: the first 30 ms are for settling after the start
  // burst; rates are averaged over the rest (DCQCN's random marking makes rates drift for tens of ms).
  const sizeBytes = Math.round(((100e9 / 8) * 0.2) / flows);
  const { run, topology } = simulate(
    {
      topology: { kind: 'star', hosts: flows + 1, linkRate: '100Gbps', linkDelay: '1us' },
      switch: { buffer: '4MiB', ecn: { kmin: KMIN, kmax: KMAX, pmax: 0.01 }, pfc: {} },
      transport: { kind: 'roce' },
      workloads: Array.from({ length: flows }, (_, i) => ({
        kind: 'flow',
        src: i + 1,
        dst: 0,
        size: sizeBytes,
      })),
    },
    seed,
  );
  expect(run.status).toBe('done');
  const firstFinish = Math.min(...run.sim.connections.map((c) => c.lastDeliveryPs));
  const from = 30e9; // 30 ms in ps
  const to = firstFinish;
  const fairShare = (100e9 * 4096) / roceWireBytes(4096) / flows;
  const rates = run.sim.connections.map((_, i) => sampledRateBps(run, i, from, to));
  // Share of samples in the window with the bottleneck queue (switch -> host 0) between Kmin and Kmax.
  const bottleneck = topology.links.find((l) => l.to === 0)!.id;
  const s = run.sim.sampler;
  let inside = 0;
  let total = 0;
  for (let i = 0; i < s.count; i++) {
    const t = s.times[i]!;
    if (t < from || t > to) continue;
    const q = s.queues[i * topology.links.length + bottleneck]!;
    total++;
    if (q >= KMIN && q <= KMAX) inside++;
  }
  return { rates, fairShare, inside: inside / total, drops: run.sim.drops, cnps: run.sim.counters.cnps };
}

describe('DCQCN fairness', () => {
  for (const [flows, seed] of [
    [2, 1],
    [4, 1],
    [8, 1],
    [8, 3],
  ] as const) {
    it(`${flows} long flows (seed ${seed}) settle within 10% of the fair share, queue between Kmin and Kmax`, () => {
      const r = fairness(flows, seed);
      for (const rate of r.rates) expect(Math.abs(rate - r.fairShare) / r.fairShare).toBeLessThan(0.1);
      expect(r.inside).toBeGreaterThan(0.5);
      expect(r.cnps).toBeGreaterThan(0);
      expect(r.drops).toBe(0);
    });
  }
});
