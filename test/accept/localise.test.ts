import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { localise, singleFaultRunBound, type GroupRunner } from '../../src/accept/localise.js';
import { InputError } from '../../src/core/errors.js';

const hostsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `h${i}`);
/** A run fails when any member is bad. */
const oracle = (bad: Iterable<string>): GroupRunner => {
  const set = new Set(bad);
  return (hosts) => Promise.resolve(hosts.some((host) => set.has(host)) ? 'fail' : 'pass');
};

describe('localise', () => {
  it('finds one slow host among 16 within 2*ceil(log2 16) + 2 = 10 runs after a failing screen', async () => {
    const result = await localise(hostsOf(16), oracle(['h11']), { screenFailed: true });
    expect(result.bad).toEqual(['h11']);
    expect(result.runs).toBeLessThanOrEqual(10);
    expect(result.runs).toBe(result.trail.length);
    expect(result.complete).toBe(true);
    expect(result.trail[0]).toEqual({ hosts: hostsOf(8), verdict: 'pass' });
  });

  it('meets the single-fault bound for every position of the bad host, N = 2..64', async () => {
    for (let n = 2; n <= 64; n++) {
      const hosts = hostsOf(n);
      const bound = 2 * Math.ceil(Math.log2(n)) + 2;
      expect(singleFaultRunBound(n)).toBeLessThanOrEqual(bound);
      for (const bad of hosts) {
        const result = await localise(hosts, oracle([bad]), { screenFailed: true });
        expect(result.bad).toEqual([bad]);
        expect(result.runs).toBeLessThanOrEqual(singleFaultRunBound(n));
      }
    }
  });

  it('runs the screen itself when not told it failed, and stops there on a healthy set', async () => {
    const healthy = await localise(hostsOf(8), oracle([]));
    expect(healthy).toEqual({
      bad: [],
      runs: 1,
      trail: [{ hosts: hostsOf(8), verdict: 'pass' }],
      cuts: [],
      complete: true,
    });
    const one = await localise(hostsOf(8), oracle(['h2']));
    expect(one.bad).toEqual(['h2']);
    expect(one.runs).toBeLessThanOrEqual(1 + singleFaultRunBound(8));
  });

  it('handles the trivial sets', async () => {
    expect((await localise([], oracle([]))).runs).toBe(0);
    expect(await localise(['a'], oracle(['a']), { screenFailed: true })).toMatchObject({
      bad: ['a'],
      runs: 0,
    });
  });

  it('reports a fault between halves as a cut, blaming no host', async () => {
    // Fails only when h0 and h15 run together: a path between the halves, not a host.
    const runGroup: GroupRunner = (hosts) =>
      Promise.resolve(hosts.includes('h0') && hosts.includes('h15') ? 'fail' : 'pass');
    const result = await localise(hostsOf(16), runGroup, { screenFailed: true });
    expect(result.bad).toEqual([]);
    expect(result.cuts).toEqual([{ left: hostsOf(8), right: hostsOf(16).slice(8) }]);
  });

  it('stops at the run budget and says it is incomplete', async () => {
    const result = await localise(hostsOf(16), oracle(['h3', 'h12']), { screenFailed: true, maxRuns: 3 });
    expect(result.runs).toBe(3);
    expect(result.complete).toBe(false);
  });

  it('rejects duplicated hosts', async () => {
    await expect(localise(['a', 'a'], oracle([]))).rejects.toBeInstanceOf(InputError);
  });

  it('property: finds exactly the bad set, within 2 d ceil(log2 N) runs after the screen', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 64 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: Math.min(n, 6) }),
            ),
          ),
        async ([n, badIndexes]) => {
          const hosts = hostsOf(n);
          const bad = badIndexes.map((i) => `h${i}`);
          const result = await localise(hosts, oracle(bad), { screenFailed: true });
          expect(result.bad).toEqual(hosts.filter((h) => bad.includes(h)));
          expect(result.runs).toBeLessThanOrEqual(bad.length * singleFaultRunBound(n));
          expect(result.cuts).toEqual([]);
        },
      ),
    );
  });
});
