import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  circlePairings,
  crossLeafRounds,
  randomPairings,
  type PairRound,
} from '../../src/accept/pairings.js';
import { InputError } from '../../src/core/errors.js';

const hostsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `h${i}`);
const key = (a: string, b: string): string => [a, b].sort().join('~');

function expectDisjointRounds(rounds: PairRound[]): void {
  for (const round of rounds) {
    const seen = new Set<string>();
    for (const [a, b] of round) {
      expect(a).not.toBe(b);
      expect(seen.has(a) || seen.has(b)).toBe(false);
      seen.add(a);
      seen.add(b);
    }
  }
}

describe('circlePairings', () => {
  it('schedules 4 hosts in 3 rounds of 2 pairs', () => {
    expect(circlePairings(hostsOf(4))).toEqual([
      [
        ['h0', 'h3'],
        ['h1', 'h2'],
      ],
      [
        ['h0', 'h2'],
        ['h3', 'h1'],
      ],
      [
        ['h0', 'h1'],
        ['h2', 'h3'],
      ],
    ]);
  });

  it('gives no rounds for fewer than two hosts and one for two', () => {
    expect(circlePairings([])).toEqual([]);
    expect(circlePairings(['a'])).toEqual([]);
    expect(circlePairings(['a', 'b'])).toEqual([[['a', 'b']]]);
  });

  it('rejects duplicated hosts', () => {
    expect(() => circlePairings(['a', 'b', 'a'])).toThrow(InputError);
  });

  it('property: every pair exactly once, each host at most once per round, n-1 rounds (n even) or n (odd)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), (n) => {
        const hosts = hostsOf(n);
        const rounds = circlePairings(hosts);
        expect(rounds).toHaveLength(n % 2 === 0 ? n - 1 : n);
        expectDisjointRounds(rounds);
        const met = new Map<string, number>();
        for (const round of rounds) {
          expect(round).toHaveLength(Math.floor(n / 2));
          for (const [a, b] of round) met.set(key(a, b), (met.get(key(a, b)) ?? 0) + 1);
        }
        expect(met.size).toBe((n * (n - 1)) / 2);
        expect([...met.values()].every((count) => count === 1)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

describe('randomPairings', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const hosts = hostsOf(12);
    expect(randomPairings(hosts, 3, 7)).toEqual(randomPairings(hosts, 3, 7));
    expect(randomPairings(hosts, 3, 7)).not.toEqual(randomPairings(hosts, 3, 8));
  });

  it('leaves one host out per round when n is odd', () => {
    const rounds = randomPairings(hostsOf(5), 4, 1);
    expect(rounds).toHaveLength(4);
    for (const round of rounds) expect(round).toHaveLength(2);
    expectDisjointRounds(rounds);
  });

  it('prefers pairs not drawn before: 3 rounds on 16 hosts repeat none', () => {
    const rounds = randomPairings(hostsOf(16), 3, 42);
    const keys = rounds.flat().map(([a, b]) => key(a, b));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('rejects a bad round count and duplicated hosts', () => {
    expect(() => randomPairings(hostsOf(4), -1, 1)).toThrow(InputError);
    expect(() => randomPairings(hostsOf(4), 1.5, 1)).toThrow(InputError);
    expect(() => randomPairings(['a', 'a'], 1, 1)).toThrow(InputError);
  });

  it('property: rounds are disjoint pairs of the given hosts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer(),
        (n, count, seed) => {
          const hosts = hostsOf(n);
          const rounds = randomPairings(hosts, count, seed);
          expect(rounds).toHaveLength(n < 2 ? 0 : count);
          expectDisjointRounds(rounds);
          for (const [a, b] of rounds.flat()) {
            expect(hosts).toContain(a);
            expect(hosts).toContain(b);
          }
        },
      ),
    );
  });
});

describe('crossLeafRounds', () => {
  it('loads every leaf uplink in both directions: the hosts of one leaf each send to a host of another, at once', () => {
    const leafOf = { a1: 'leaf0', a2: 'leaf0', b1: 'leaf1', b2: 'leaf1', b3: 'leaf1', c1: 'leaf2' };
    expect(crossLeafRounds(Object.keys(leafOf), leafOf)).toEqual([
      [
        ['a1', 'b1'],
        ['a2', 'b2'],
      ],
      [['a1', 'c1']],
      [
        ['b1', 'a1'],
        ['b2', 'a2'],
      ],
      [['b1', 'c1']],
      [['c1', 'a1']],
      [['c1', 'b1']],
    ]);
    expect(crossLeafRounds(['x', 'y'], { x: 'leaf0', y: 'leaf0' })).toEqual([]);
  });
});
