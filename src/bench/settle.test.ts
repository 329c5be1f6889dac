import { describe, expect, it } from 'vitest';
import { SETTLE_ITERS, settle } from './settle.js';

/** A clock the test drives: each collective "takes" msPerIteration, whatever the machine does. */
function simulated(msPerIteration: number): {
  runOnce: () => Promise<void>;
  mean: (ms: number) => Promise<number>;
  runs: () => number;
} {
  let runs = 0;
  let sinceAgreed = 0;
  return {
    runOnce: () => {
      runs++;
      sinceAgreed++;
      return Promise.resolve();
    },
    mean: () => {
      const ms = sinceAgreed * msPerIteration;
      sinceAgreed = 0;
      return Promise.resolve(ms);
    },
    runs: () => runs,
  };
}

describe('settle', () => {
  it('runs nothing with a zero budget', async () => {
    const sim = simulated(1);
    expect(await settle(sim.runOnce, sim.mean, 0)).toEqual({ iterations: 0, spentMs: 0 });
    expect(sim.runs()).toBe(0);
  });

  it('stops at the budget when iterations are slow', async () => {
    const sim = simulated(30);
    const result = await settle(sim.runOnce, sim.mean, 1000);
    // Batches aim at 50 ms (one 30 ms iteration each here) until 1000 ms are spent: 34 iterations.
    expect(result.iterations).toBe(34);
    expect(result.spentMs).toBe(1020);
    expect(sim.runs()).toBe(result.iterations);
  });

  it('stops at SETTLE_ITERS when iterations are quick', async () => {
    const sim = simulated(0.01);
    const result = await settle(sim.runOnce, sim.mean, 1000);
    expect(result.iterations).toBe(SETTLE_ITERS);
    expect(sim.runs()).toBe(SETTLE_ITERS);
  });

  it('runs the same count on every rank, each deciding from the agreed mean', async () => {
    // Two ranks whose own clocks differ (one three times slower); the control channel's sum is the
    // only thing they decide from, so they must run exactly as many collectives.
    const ranks = [simulated(2), simulated(6)];
    let pending: { ms: number; resolve: (mean: number) => void }[] = [];
    const agree = (ms: number): Promise<number> =>
      new Promise((resolve) => {
        pending.push({ ms, resolve });
        if (pending.length === ranks.length) {
          const mean = pending.reduce((sum, entry) => sum + entry.ms, 0) / ranks.length;
          for (const entry of pending) entry.resolve(mean);
          pending = [];
        }
      });
    const results = await Promise.all(
      ranks.map((rank) => settle(rank.runOnce, async (ms) => agree(await rank.mean(ms)), 400)),
    );
    expect(results[0]).toEqual(results[1]);
    expect(ranks[0]!.runs()).toBe(ranks[1]!.runs());
    expect(results[0]!.iterations).toBeGreaterThan(0);
  });
});
