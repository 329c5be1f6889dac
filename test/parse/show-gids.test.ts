import { describe, expect, it } from 'vitest';
import { parseShowGids } from '../../src/parse/show-gids.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'show-gids';

describe('show_gids parser: facts checked by hand against the text', () => {
  it('reads rows with and without IPv4, and a row without netdev', () => {
    const { facts, warnings } = parseShowGids(fixtureText(KIND, 'blog-roce-pve-mlx5-n-gids-found.txt'));
    expect(facts.gidsFound).toBe(5);
    expect(facts.entries[3]).toEqual({
      device: 'mlx5_0',
      port: 1,
      index: 3,
      gid: '0000:0000:0000:0000:0000:ffff:c0a8:0684',
      ipv4: '192.168.6.132',
      version: 'v2',
      netdev: 'mce0',
      line: 6,
    });
    expect(facts.entries[4]).toMatchObject({ device: 'mlx5_1', version: 'v1', netdev: null });
    expect(warnings).toEqual([]);
  });

  it('reads tab-separated rows of a pod whose GIDs start at index 4, and skips a cut row', () => {
    const { facts, warnings } = parseShowGids(
      fixtureText(KIND, 'nccl-issue1573-pod-macvlan-tabs-truncated.txt'),
    );
    const roceV2Ipv4 = facts.entries
      .filter((e) => e.version === 'v2' && e.ipv4 !== null)
      .map((e) => [e.device, e.index, e.ipv4]);
    expect(roceV2Ipv4).toEqual([
      ['mlx5_0', 7, '10.152.0.12'],
      ['mlx5_1', 7, '10.152.4.12'],
    ]);
    expect(warnings).toEqual([{ line: 13, message: 'GID cut short or malformed; skipped' }]);
  });

  it('reads an empty table (n_gids_found=0)', () => {
    expect(parseShowGids(fixtureText(KIND, 'k8s-sriov-issue30-no-gids.txt')).facts).toEqual({
      entries: [],
      gidsFound: 0,
    });
  });

  it('warns when n_gids_found disagrees with the rows read', () => {
    const text = fixtureText(KIND, 'blog-roce-pve-mlx5-n-gids-found.txt').replace(
      'n_gids_found=5',
      'n_gids_found=6',
    );
    expect(parseShowGids(text).warnings).toEqual([{ message: 'n_gids_found=6 but 5 rows were read' }]);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseShowGids(fixtureText('rdma-link', '3fs-pr283-two-roce-links.txt'))).toThrow(
      NotThisKindError,
    );
  });
});
