/**
 * Seeded randomness for everything stochastic (Monte Carlo stragglers, the simulator).
 * xoroshiro128+ from pure-rand: fast, small state, and jumpable for independent streams.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** Exponential with the given mean. */
  exponential(mean: number): number;
  /** Integer uniform in [0, n). */
  int(n: number): number;
}

export function createRng(seed: number): Rng {
  const generator: RandomGenerator = xoroshiro128plus(seed | 0);
  let spareNormal: number | undefined;
  const next = (): number => uniformFloat64(generator);
  return {
    next,
    normal(): number {
      if (spareNormal !== undefined) {
        const value = spareNormal;
        spareNormal = undefined;
        return value;
      }
      let u = next();
      while (u === 0) u = next();
      const v = next();
      const radius = Math.sqrt(-2 * Math.log(u));
      spareNormal = radius * Math.sin(2 * Math.PI * v);
      return radius * Math.cos(2 * Math.PI * v);
    },
    exponential(mean: number): number {
      return -mean * Math.log(1 - next());
    },
    int(n: number): number {
      return Math.floor(next() * n);
    },
  };
}
