import { describe, expect, it } from 'vitest';
import {
  attributeCulprits,
  formatArgv,
  type HostOutcome,
  type PairOutcome,
} from '../../src/accept/attribute.js';
import { circlePairings } from '../../src/accept/pairings.js';
import type { AcceptVerdict } from '../../src/accept/types.js';

const HOSTS = Array.from({ length: 12 }, (_, i) => `h${i}`);
/** 12 hosts under 3 leaves, placed contiguously as the two-tier testbed does. */
const LEAF_OF: Record<string, string> = Object.fromEntries(
  HOSTS.map((h, i) => [h, `leaf${Math.floor(i / 4)}`]),
);

const argvFor = (a: string, b: string): string[] => ['aifabric', 'bench', 'tcp', '--hosts', `${a},${b}`];

/** Every pair of the circle schedule, with its verdict from `verdictOf`. */
function circle(verdictOf: (a: string, b: string) => AcceptVerdict, hosts = HOSTS): PairOutcome[] {
  return circlePairings(hosts)
    .flat()
    .map(([a, b]) => ({ a, b, verdict: verdictOf(a, b), argv: argvFor(a, b) }));
}

const involves =
  (host: string) =>
  (a: string, b: string): AcceptVerdict =>
    a === host || b === host ? 'slow' : 'pass';

/** Slow exactly where a pair crosses leaf1's uplink. */
const crossesLeaf1 = (a: string, b: string): AcceptVerdict =>
  (LEAF_OF[a] === 'leaf1') !== (LEAF_OF[b] === 'leaf1') ? 'slow' : 'pass';

describe('attributeCulprits', () => {
  it('names no culprit on a healthy fleet', () => {
    expect(attributeCulprits({ pairs: circle(() => 'pass'), leafOf: LEAF_OF })).toEqual([]);
  });

  it('blames a node that fails with all of its partners, and only it', () => {
    const culprits = attributeCulprits({ pairs: circle(involves('h5')), leafOf: LEAF_OF });
    expect(culprits).toHaveLength(1);
    expect(culprits[0]).toMatchObject({ kind: 'node', id: 'h5', severity: 'error', score: 1 });
    expect(culprits[0]?.evidence[0]).toBe('failed with 11 of 11 partners');
    expect(culprits[0]?.reproduce).toMatch(/^aifabric bench tcp --hosts (h5,h\d+|h\d+,h5)$/);
  });

  it('blames two bad nodes, each with its own evidence', () => {
    const verdictOf = (a: string, b: string): AcceptVerdict =>
      [a, b].some((h) => h === 'h1' || h === 'h8') ? 'fail' : 'pass';
    const culprits = attributeCulprits({ pairs: circle(verdictOf) });
    expect(culprits.map((c) => [c.kind, c.id])).toEqual([
      ['node', 'h1'],
      ['node', 'h8'],
    ]);
  });

  it('blames a slow leaf uplink, not the nodes under it, when every failing pair crosses it', () => {
    const culprits = attributeCulprits({ pairs: circle(crossesLeaf1), leafOf: LEAF_OF });
    expect(culprits).toHaveLength(1);
    expect(culprits[0]).toMatchObject({ kind: 'link', id: 'leaf1-uplink', severity: 'error', score: 1 });
    expect(culprits[0]?.evidence[0]).toContain('32 of 32 pairs crossing leaf1');
    expect(culprits.some((c) => c.kind === 'node')).toBe(false);
  });

  it('still blames the uplink when one stray pair elsewhere is slow too, and leaves that pair to the later rules', () => {
    const crossesLeaf1OrStray = (a: string, b: string): AcceptVerdict =>
      (LEAF_OF[a] === 'leaf1') !== (LEAF_OF[b] === 'leaf1') ||
      (a === 'h0' && b === 'h9') ||
      (a === 'h9' && b === 'h0')
        ? 'slow'
        : 'pass';
    const culprits = attributeCulprits({ pairs: circle(crossesLeaf1OrStray), leafOf: LEAF_OF });
    expect(culprits[0]).toMatchObject({ kind: 'link', id: 'leaf1-uplink', severity: 'error' });
    expect(culprits[0]?.evidence[0]).toBe(
      "32 of 32 pairs crossing leaf1's uplink fail; 1 of the 34 other pairs fail",
    );
    expect(culprits.some((c) => c.kind === 'node')).toBe(false);
    expect(culprits[1]).toMatchObject({ kind: 'link', id: expect.stringMatching(/^h(0~h9|9~h0)$/) });
  });

  it('lets the uplink explain a host of its leaf judged slow only on the median of its pairs', () => {
    const medianSlow: HostOutcome = {
      host: 'h5',
      verdict: 'slow',
      argv: argvFor('h5', 'h0'),
      fromPairs: true,
      detail: 'median share of the expected rate over its 11 pairs 40%',
    };
    const culprits = attributeCulprits({ pairs: circle(crossesLeaf1), hosts: [medianSlow], leafOf: LEAF_OF });
    expect(culprits).toHaveLength(1);
    expect(culprits[0]).toMatchObject({ kind: 'link', id: 'leaf1-uplink', severity: 'error', score: 1 });
    expect(culprits[0]?.evidence[0]).toBe(
      "32 of 32 pairs crossing leaf1's uplink fail; every pair within a leaf and between other leaves passes",
    );
  });

  it('does not let the uplink explain a host whose own run failed, or whose pairs inside the leaf fail', () => {
    const ownRun: HostOutcome = {
      host: 'h5',
      verdict: 'fail',
      argv: ['aifabric', 'preflight'],
      detail: 'MTU 1400',
    };
    const own = attributeCulprits({ pairs: circle(crossesLeaf1), hosts: [ownRun], leafOf: LEAF_OF });
    expect(own.some((c) => c.id === 'leaf1-uplink')).toBe(false);
    expect(own.find((c) => c.kind === 'node' && c.id === 'h5')).toBeDefined();

    const alsoInside = (a: string, b: string): AcceptVerdict =>
      crossesLeaf1(a, b) === 'slow' || [a, b].sort().join() === 'h4,h5' ? 'slow' : 'pass';
    const medianSlow: HostOutcome = {
      host: 'h5',
      verdict: 'slow',
      argv: argvFor('h5', 'h4'),
      fromPairs: true,
    };
    const inside = attributeCulprits({ pairs: circle(alsoInside), hosts: [medianSlow], leafOf: LEAF_OF });
    expect(inside.some((c) => c.id === 'leaf1-uplink')).toBe(false);
    expect(inside.find((c) => c.kind === 'node' && c.id === 'h5')).toBeDefined();
  });

  it('blames no uplink when pairs fail everywhere alike', () => {
    const everyThird = (a: string, b: string): AcceptVerdict =>
      (Number(a.slice(1)) + Number(b.slice(1))) % 3 === 0 ? 'slow' : 'pass';
    const culprits = attributeCulprits({ pairs: circle(everyThird), leafOf: LEAF_OF });
    expect(culprits.some((c) => c.id.endsWith('-uplink'))).toBe(false);
  });

  it('without placement, the same pattern can only blame the hosts under that leaf', () => {
    const culprits = attributeCulprits({ pairs: circle(crossesLeaf1) });
    expect(culprits.map((c) => c.id).sort()).toEqual(['h4', 'h5', 'h6', 'h7']);
  });

  it('blames a bad node, not its leaf, even when placement is known', () => {
    const culprits = attributeCulprits({ pairs: circle(involves('h6')), leafOf: LEAF_OF });
    expect(culprits.map((c) => [c.kind, c.id])).toEqual([['node', 'h6']]);
  });

  it('blames a single failing pair between otherwise fine hosts as a link a~b', () => {
    const verdictOf = (a: string, b: string): AcceptVerdict =>
      [a, b].sort().join() === 'h2,h9' ? 'fail' : 'pass';
    const pairs = circle(verdictOf);
    const bad = pairs.find((p) => p.verdict === 'fail');
    const culprits = attributeCulprits({ pairs, leafOf: LEAF_OF });
    expect(culprits).toEqual([
      {
        kind: 'link',
        id: `${bad?.a}~${bad?.b}`,
        severity: 'error',
        score: 1,
        evidence: ['the only failing pair of either host', `pair ${bad?.a}~${bad?.b} fail`],
        reproduce: formatArgv(argvFor(bad?.a ?? '', bad?.b ?? '')),
      },
    ]);
  });

  it('blames a node whose single-host run failed, with that run as the reproducer', () => {
    const hosts: HostOutcome[] = HOSTS.map((host) => ({
      host,
      verdict: host === 'h3' ? 'fail' : 'pass',
      argv: ['all_reduce_perf', '-g', '1', '--host', host],
      detail: host === 'h3' ? 'transport fell back to NET/Socket' : undefined,
    }));
    const culprits = attributeCulprits({ pairs: circle(() => 'pass'), hosts });
    expect(culprits).toHaveLength(1);
    expect(culprits[0]).toMatchObject({
      kind: 'node',
      id: 'h3',
      reproduce: 'all_reduce_perf -g 1 --host h3',
    });
    expect(culprits[0]?.evidence).toEqual([
      'its own results fail (preflight, the median of its pairs, or group testing beside hosts that pass)',
      'host h3 fail: transport fell back to NET/Socket',
    ]);
  });

  it('blames a rail that fails on every node while the other rail passes', () => {
    const hosts: HostOutcome[] = HOSTS.flatMap((host) =>
      ['mlx5_0', 'mlx5_1'].map((rail) => ({
        host,
        rail,
        verdict: rail === 'mlx5_1' ? 'slow' : 'pass',
        argv: ['ib_write_bw', '-d', rail],
      })),
    );
    const culprits = attributeCulprits({ pairs: circle(() => 'pass'), hosts });
    expect(culprits.map((c) => [c.kind, c.id])).toEqual([['rail', 'mlx5_1']]);
    expect(culprits[0]?.evidence[0]).toContain('12 runs on 12 hosts');
  });

  it('blames the fabric when halves pass and every pair across them fails', () => {
    const half = (h: string): number => (Number(h.slice(1)) < 6 ? 0 : 1);
    const verdictOf = (a: string, b: string): AcceptVerdict => (half(a) !== half(b) ? 'fail' : 'pass');
    const culprits = attributeCulprits({ pairs: circle(verdictOf) });
    expect(culprits.map((c) => [c.kind, c.id, c.score])).toEqual([['fabric', 'fabric', 1]]);
    const twoLeaves = Object.fromEntries(HOSTS.map((h) => [h, `leaf${half(h)}`]));
    expect(attributeCulprits({ pairs: circle(verdictOf), leafOf: twoLeaves }).map((c) => c.id)).toEqual([
      'leaf0~leaf1',
    ]);
  });

  it('blames the fabric, never every node, when everything fails', () => {
    const culprits = attributeCulprits({ pairs: circle(() => 'hung') });
    expect(culprits.map((c) => c.kind)).toEqual(['fabric']);
    expect(culprits[0]?.evidence.at(-1)).toBe('... and 59 more');
  });

  it('ranks the culprit explaining most failures first and marks unstable-only culprits as warnings', () => {
    const verdictOf = (a: string, b: string): AcceptVerdict => {
      if (a === 'h0' || b === 'h0') return 'unstable';
      if ([a, b].sort().join() === 'h3,h7') return 'slow';
      return 'pass';
    };
    const culprits = attributeCulprits({ pairs: circle(verdictOf) });
    expect(culprits.map((c) => [c.kind, c.id, c.severity])).toEqual([
      ['node', 'h0', 'warn'],
      ['link', culprits[1]?.id, 'error'],
    ]);
    expect(culprits[0]?.score).toBeCloseTo(11 / 12);
    expect(['h3~h7', 'h7~h3']).toContain(culprits[1]?.id);
  });
});

describe('formatArgv', () => {
  it('quotes only what a shell would split or expand', () => {
    expect(formatArgv(['ib_write_bw', '-d', 'mlx5_0', '--report', 'a b', "it's", 'x=$HOME'])).toBe(
      "ib_write_bw -d mlx5_0 --report 'a b' 'it'\\''s' 'x=$HOME'",
    );
  });
});
