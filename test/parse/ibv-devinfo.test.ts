import { describe, expect, it } from 'vitest';
import { parseIbvDevinfo } from '../../src/parse/ibv-devinfo.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'ibv-devinfo';

describe('ibv_devinfo parser: facts checked by hand against the text', () => {
  it('reads plain output: device fields and a port that is down', () => {
    const { facts, warnings } = parseIbvDevinfo(fixtureText(KIND, 'deepep-issue60-plain-port-down.txt'));
    expect(facts.verbose).toBe(false);
    expect(facts.devices[0]).toMatchObject({
      hcaId: 'mlx5_12',
      fwVer: '22.38.1900',
      vendorPartId: 4125,
      boardId: 'MT_0000000436',
      physPortCnt: 1,
    });
    expect(facts.devices[0]!.ports[0]).toMatchObject({
      port: 1,
      state: 'PORT_DOWN',
      maxMtuBytes: 4096,
      activeMtuBytes: 1024,
      linkLayer: 'Ethernet',
    });
    expect(warnings).toEqual([
      { line: 20, message: 'mlx5_13: 1 port(s) announced, 0 printed (output cut?)' },
    ]);
  });

  it('reads -v port fields and the GID table with RoCE versions', () => {
    const { facts } = parseIbvDevinfo(fixtureText(KIND, 'rdma-notes-verbose-roce-port-gids.txt'));
    const port = facts.devices[0]!.ports[0]!;
    expect(facts.verbose).toBe(true);
    expect(port).toMatchObject({
      activeWidthLanes: 4,
      activeSpeedGbpsPerLane: 25,
      activeRateGbps: 100,
      physState: 'LINK_UP',
      gidTableLength: 255,
    });
    expect(port.gids.map((gid) => [gid.index, gid.roceVersion])).toEqual([
      [0, 'v1'],
      [1, 'v2'],
      [2, 'v1'],
      [3, 'v2'],
    ]);
    expect(port.gids[3]!.gid).toBe('::ffff:10.22.116.220');
  });

  it('keeps port fields of an excerpt that starts inside a port section', () => {
    const { facts, warnings } = parseIbvDevinfo(fixtureText(KIND, 'deepep-issue55-plain-ib-cx7.txt'));
    expect(facts.devices.map((device) => device.hcaId)).toEqual([null, 'mlx5_3', 'mlx5_4']);
    expect(facts.devices[0]!.ports[0]).toMatchObject({
      state: 'PORT_ACTIVE',
      portLid: 1691,
      linkLayer: 'InfiniBand',
    });
    expect(warnings[0]!.line).toBe(1);
  });

  it('reads tab-separated -v output and its multi-line flag lists', () => {
    const { facts } = parseIbvDevinfo(fixtureText(KIND, 'ompi-pr6184-verbose-tabs-truncated.txt'));
    expect(facts.verbose).toBe(true);
    expect(facts.devices[0]).toMatchObject({
      hcaId: 'mlx5_1',
      fwVer: '16.23.1020',
      nodeGuid: 'ec0d:9a03:007d:7d1b',
    });
    expect(facts.devices[0]!.fields.max_qp).toBe('262144');
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseIbvDevinfo(fixtureText('rdma-link', '3fs-pr283-two-roce-links.txt'))).toThrow(
      NotThisKindError,
    );
  });
});
