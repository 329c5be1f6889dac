import { describe, expect, it } from 'vitest';
import { parseRdmaLink } from '../../src/parse/rdma-link.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'rdma-link';

describe('rdma link parser: facts checked by hand against the text', () => {
  it('reads RoCE links with their netdev, skipping the shell prompt', () => {
    const { facts } = parseRdmaLink(fixtureText(KIND, '3fs-pr283-two-roce-links.txt'));
    expect(facts.links.map((l) => [l.device, l.port, l.state, l.physicalState, l.netdev])).toEqual([
      ['mlx5_0', 1, 'ACTIVE', 'LINK_UP', 'p1p1'],
      ['mlx5_1', 1, 'ACTIVE', 'LINK_UP', 'p1p2'],
    ]);
  });

  it('reads InfiniBand links with LID, SM LID and subnet prefix', () => {
    const { facts } = parseRdmaLink(fixtureText(KIND, 'rccl-issue1423-ib-link-down-polling.txt'));
    expect(facts.links[0]).toMatchObject({
      device: 'mlx5_7',
      state: 'DOWN',
      physicalState: 'POLLING',
      lid: 3403,
      smLid: 1,
      lmc: 0,
      subnetPrefix: 'fe80:0000:0000:0000',
      netdev: null,
    });
  });

  it('reads the -j JSON form (iproute2 field names)', () => {
    // Shape of `rdma -j link show` (iproute2 rdma/link.c prints ifindex, ifname, port, state, physical_state, netdev, netdev_index).
    const text =
      '[{"ifindex":2,"ifname":"mlx5_0","port":1,"state":"ACTIVE","physical_state":"LINK_UP","netdev":"ens1f0np0","netdev_index":4}]\n';
    const { facts } = parseRdmaLink(text);
    expect(facts.format).toBe('json');
    expect(facts.links[0]).toMatchObject({
      device: 'mlx5_0',
      port: 1,
      state: 'ACTIVE',
      physicalState: 'LINK_UP',
      netdev: 'ens1f0np0',
    });
  });

  it('warns about a line cut in the middle of a key and value', () => {
    const { facts, warnings } = parseRdmaLink('link mlx5_0/1 state ACTIVE physical_state\n');
    expect(facts.links[0]!.state).toBe('ACTIVE');
    expect(warnings).toEqual([{ line: 1, message: '"physical_state" has no value (line cut short?)' }]);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseRdmaLink(fixtureText('show-gids', 'ucx-pr9484-bond-vxlan.txt'))).toThrow(
      NotThisKindError,
    );
  });
});
