/**
 * Pair schedules for the `pairs` stage: rounds of disjoint host pairs, so every host runs in at most
 * one pair at a time and a round's pairs can run side by side.
 *
 * `circlePairings` is the circle method for a round-robin tournament (Kirkman's construction, as in
 * https://en.wikipedia.org/wiki/Round-robin_tournament#Circle_method): fix one host, rotate the
 * others one place per round, and pair position i with position n-1-i. With n hosts (n even) it
 * gives n-1 rounds in which every pair meets exactly once; with n odd a bye is added, giving n
 * rounds in each of which one host sits out. `randomPairings` is the cheap screen: a few seeded
 * random rounds, preferring pairs not yet drawn.
 */
import { InputError } from '../core/errors.js';
import { createRng } from '../core/rng.js';

export type HostPair = readonly [string, string];
/** One round: disjoint pairs. */
export type PairRound = HostPair[];

/** Reshuffles tried per random round to avoid repeating a pair already drawn. */
const RANDOM_ROUND_ATTEMPTS = 16;

function checkDistinct(hosts: readonly string[]): void {
  const seen = new Set<string>();
  for (const host of hosts) {
    if (seen.has(host)) throw new InputError(`host "${host}" is listed twice: expected distinct hosts`);
    seen.add(host);
  }
}

/** Every pair exactly once, in n-1 rounds (n even) or n rounds with one bye each (n odd). */
export function circlePairings(hosts: readonly string[]): PairRound[] {
  checkDistinct(hosts);
  if (hosts.length < 2) return [];
  const slots: (string | null)[] = [...hosts];
  if (slots.length % 2 === 1) slots.push(null);
  const n = slots.length;
  const rounds: PairRound[] = [];
  for (let round = 0; round < n - 1; round++) {
    const pairs: PairRound = [];
    for (let i = 0; i < n / 2; i++) {
      const a = slots[i] ?? null;
      const b = slots[n - 1 - i] ?? null;
      if (a !== null && b !== null) pairs.push([a, b]);
    }
    rounds.push(pairs);
    // Keep slot 0 fixed; move the last slot to position 1 (rotate the others by one).
    const last = slots.pop() ?? null;
    slots.splice(1, 0, last);
  }
  return rounds;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/**
 * `rounds` seeded random rounds of disjoint pairs (one host sits out when n is odd). Within each
 * round a few shuffles are tried and the one that repeats the fewest earlier pairs is kept, so a
 * short screen covers as many distinct pairs as it can. Same seed, same schedule.
 */
export function randomPairings(hosts: readonly string[], rounds: number, seed: number): PairRound[] {
  checkDistinct(hosts);
  if (!Number.isInteger(rounds) || rounds < 0) {
    throw new InputError(`rounds ${rounds}: expected a non-negative integer`);
  }
  if (hosts.length < 2) return [];
  const rng = createRng(seed);
  const drawn = new Set<string>();
  const schedule: PairRound[] = [];
  for (let round = 0; round < rounds; round++) {
    let best: PairRound = [];
    let bestRepeats = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < RANDOM_ROUND_ATTEMPTS && bestRepeats > 0; attempt++) {
      const order = [...hosts];
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        const held = order[i] ?? '';
        order[i] = order[j] ?? '';
        order[j] = held;
      }
      const pairs: PairRound = [];
      let repeats = 0;
      for (let i = 0; i + 1 < order.length; i += 2) {
        const a = order[i] ?? '';
        const b = order[i + 1] ?? '';
        pairs.push([a, b]);
        if (drawn.has(pairKey(a, b))) repeats++;
      }
      if (repeats < bestRepeats) {
        best = pairs;
        bestRepeats = repeats;
      }
    }
    for (const [a, b] of best) drawn.add(pairKey(a, b));
    schedule.push(best);
  }
  return schedule;
}

/**
 * Rounds that load each leaf's uplink on purpose: for every ordered pair of leaves (A, B), the
 * hosts of A each send to a different host of B at once, so A's uplink and B's downlink carry as
 * many flows as the smaller leaf has hosts. Leaves in the order first seen, hosts in list order.
 */
export function crossLeafRounds(
  hosts: readonly string[],
  leafOf: Readonly<Record<string, string>>,
): PairRound[] {
  const leaves = new Map<string, string[]>();
  for (const host of hosts) {
    const leaf = leafOf[host];
    if (leaf === undefined) continue;
    leaves.set(leaf, [...(leaves.get(leaf) ?? []), host]);
  }
  const rounds: PairRound[] = [];
  for (const [a, fromHosts] of leaves) {
    for (const [b, toHosts] of leaves) {
      if (a === b) continue;
      const width = Math.min(fromHosts.length, toHosts.length);
      rounds.push(Array.from({ length: width }, (_, i): HostPair => [fromHosts[i]!, toHosts[i]!]));
    }
  }
  return rounds;
}
