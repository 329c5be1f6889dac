import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairShareNetwork } from './fair-share-network.js';

/** Capacities in bytes/ns and paths as link-index lists; returns a network and its path ids. */
function network(capacities: number[], paths: number[][]): FairShareNetwork {
  const offsets = [0];
  const links: number[] = [];
  for (const path of paths) {
    links.push(...path);
    offsets.push(links.length);
  }
  return new FairShareNetwork(
    Float64Array.from(capacities),
    Int32Array.from(offsets),
    Int32Array.from(links),
  );
}

function ratesAfterAdding(capacities: number[], paths: number[][]): number[] {
  const net = network(capacities, paths);
  const slots = paths.map((_, p) => net.addFlow(p, p, 1e9, 0));
  net.recompute(0);
  return slots.map((slot) => net.rateOf(slot));
}

describe('progressive filling (max-min fair rates)', () => {
  it('gives two flows on one link half each', () => {
    expect(ratesAfterAdding([10], [[0], [0]])).toEqual([5, 5]);
  });

  it('gives a flow limited elsewhere its bottleneck and the rest of the link to the other', () => {
    // Link 0 (10) is shared; flow 1 also crosses link 1 (2), so flow 0 takes the 8 left over.
    expect(ratesAfterAdding([10, 2], [[0], [0, 1]])).toEqual([8, 2]);
  });

  it('solves the multi-bottleneck textbook case', () => {
    // Links a=10, b=8, c=4. Flows: f1 [a], f2 [a,b], f3 [b,c], f4 [c], f5 [b].
    // c fills first at 4/2 = 2 (f3, f4); b then has 8-2 = 6 for f2, f5: 3 each; a has 10-3 = 7 for f1.
    const rates = ratesAfterAdding([10, 8, 4], [[0], [0, 1], [1, 2], [2], [1]]);
    expect(rates).toEqual([7, 3, 2, 2, 3]);
  });

  it('gives the freed capacity back when a flow leaves', () => {
    const net = network([10, 2], [[0], [0, 1], [0]]);
    const a = net.addFlow(0, 0, 1e9, 0);
    const b = net.addFlow(1, 1, 1e9, 0);
    const c = net.addFlow(2, 2, 1e9, 0);
    net.recompute(0);
    expect([net.rateOf(a), net.rateOf(b), net.rateOf(c)]).toEqual([4, 2, 4]);
    net.removeFlow(b);
    net.recompute(1);
    expect([net.rateOf(a), net.rateOf(c)]).toEqual([5, 5]);
    // Remaining bytes were settled at the old rate up to the change.
    expect(net.remainingBytesOf(a)).toBeCloseTo(1e9 - 4, 6);
  });
});

/** A random network and flow set for the properties below. */
const scenario = fc
  .record({
    capacities: fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 8 }),
    pathSeeds: fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 25 }),
  })
  .map(({ capacities, pathSeeds }) => ({
    capacities,
    paths: pathSeeds.map((seeds) => [...new Set(seeds.map((s) => s % capacities.length))]),
  }));

describe('max-min properties', () => {
  it('never loads a link beyond its capacity, and every flow has a saturated bottleneck where it is largest', () => {
    fc.assert(
      fc.property(scenario, ({ capacities, paths }) => {
        const rates = ratesAfterAdding(capacities, paths);
        const load = capacities.map(() => 0);
        paths.forEach((path, f) => path.forEach((link) => (load[link]! += rates[f]!)));
        load.forEach((used, link) => expect(used).toBeLessThanOrEqual(capacities[link]! * (1 + 1e-9)));
        // Max-min fairness (Bertsekas & Gallager, prop. 6.5.1): each flow crosses a full link on
        // which no flow gets more than it does.
        paths.forEach((path, f) => {
          const bottleneck = path.some(
            (link) =>
              load[link]! >= capacities[link]! * (1 - 1e-9) &&
              paths.every((other, g) => !other.includes(link) || rates[g]! <= rates[f]! * (1 + 1e-9)),
          );
          expect(bottleneck).toBe(true);
        });
      }),
    );
  });

  it('gives the same rates incrementally as from scratch after any sequence of arrivals and departures', () => {
    fc.assert(
      fc.property(scenario, fc.array(fc.nat(), { maxLength: 30 }), ({ capacities, paths }, removals) => {
        const net = network(capacities, paths);
        const slots = new Map<number, number>();
        paths.forEach((_, p) => {
          slots.set(p, net.addFlow(p, p, 1e9, 0));
          net.recompute(0);
        });
        for (const pick of removals) {
          if (slots.size <= 1) break;
          const victim = [...slots.keys()][pick % slots.size]!;
          net.removeFlow(slots.get(victim)!);
          slots.delete(victim);
          net.recompute(0);
        }
        const survivors = [...slots.keys()];
        const fresh = ratesAfterAdding(
          capacities,
          survivors.map((p) => paths[p]!),
        );
        survivors.forEach((p, i) => expect(net.rateOf(slots.get(p)!)).toBeCloseTo(fresh[i]!, 9));
      }),
    );
  });
});
