/**
 * Group testing: find the bad hosts with few runs by testing sets of hosts, where a run on a set
 * fails when any member is bad (issue 11: "the number of runs grows with log N for a few bad hosts,
 * not with N squared").
 *
 * Adaptive binary splitting (Dorfman-style group testing, as in Hwang's 1972 splitting algorithm,
 * J. Amer. Statist. Assoc. 67:605): a failing set is split in halves and both halves are run; a
 * failing half is split again, down to single hosts. Each level of the recursion costs at most two
 * runs per bad host, so one bad host among N takes at most 2*ceil(log2 N) runs after the failing
 * screen, and d bad hosts O(d log N). Both halves are always run (rather than inferring the second
 * from the first) because a fault between the halves, a slow link or uplink, makes the whole fail
 * while each half passes; such a set is reported in `cuts` instead of blaming a host.
 * Runs are sequential: concurrent runs would share the fabric under test.
 */
import { InputError } from '../core/errors.js';

export type GroupVerdict = 'pass' | 'fail';

/** One run on a set of hosts; fails when any member is bad. */
export type GroupRunner = (hosts: string[]) => Promise<GroupVerdict>;

export interface LocaliseOptions {
  /** The whole set is already known to fail (the screening stage failed): skip that run. */
  screenFailed?: boolean;
  /** Stop starting runs after this many (the `--budget`); the result is then incomplete. */
  maxRuns?: number;
}

export interface LocaliseTrailEntry {
  hosts: string[];
  verdict: GroupVerdict;
}

export interface LocaliseResult {
  /** Hosts shown bad, in input order. */
  bad: string[];
  /** Runs made by this search (the screen counts only when it ran here). */
  runs: number;
  trail: LocaliseTrailEntry[];
  /** Sets that failed while both their halves passed: a fault between the halves, not in a host. */
  cuts: { left: string[]; right: string[] }[];
  /** False when `maxRuns` stopped the search before it finished. */
  complete: boolean;
}

/** The most runs `localise` needs for one bad host among n after a failing screen. */
export function singleFaultRunBound(n: number): number {
  return n <= 1 ? 0 : 2 * Math.ceil(Math.log2(n));
}

class BudgetSpent extends Error {}

/** Find the bad hosts among `hosts` with `runGroup`, splitting failing sets in halves. */
export async function localise(
  hosts: readonly string[],
  runGroup: GroupRunner,
  options: LocaliseOptions = {},
): Promise<LocaliseResult> {
  if (new Set(hosts).size !== hosts.length) throw new InputError('localise: hosts must be distinct');
  const maxRuns = options.maxRuns ?? Number.POSITIVE_INFINITY;
  const trail: LocaliseTrailEntry[] = [];
  const found = new Set<string>();
  const cuts: LocaliseResult['cuts'] = [];

  const run = async (set: string[]): Promise<GroupVerdict> => {
    if (trail.length >= maxRuns) throw new BudgetSpent();
    const verdict = await runGroup([...set]);
    trail.push({ hosts: [...set], verdict });
    return verdict;
  };

  /** `set` is known to fail. */
  const search = async (set: string[]): Promise<void> => {
    if (set.length === 1) {
      const [only] = set;
      if (only !== undefined) found.add(only);
      return;
    }
    const middle = Math.ceil(set.length / 2);
    const left = set.slice(0, middle);
    const right = set.slice(middle);
    const leftVerdict = await run(left);
    const rightVerdict = await run(right);
    if (leftVerdict === 'pass' && rightVerdict === 'pass') cuts.push({ left, right });
    if (leftVerdict === 'fail') await search(left);
    if (rightVerdict === 'fail') await search(right);
  };

  let complete = true;
  try {
    if (hosts.length > 0 && (options.screenFailed || (await run([...hosts])) === 'fail'))
      await search([...hosts]);
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
    complete = false;
  }
  return { bad: hosts.filter((host) => found.has(host)), runs: trail.length, trail, cuts, complete };
}
