import { describe, expect, it } from 'vitest';
import { getFabricPreset } from '../../src/spec/index.js';
import { check, findingsOf, fixture, host, nonPass } from './helpers.js';

const roce = { fabric: getFabricPreset('roce-400g') };
const devinfo = fixture('check', 'healthy-roce', 'devinfo-v.out');
const downDevinfo = fixture('check', 'port-down', 'devinfo-v.out');
const gids = fixture('check', 'healthy-roce', 'gids');
const env = (lines: string) => `${lines}\nexport NCCL_IB_TC=106\n`;

describe('rdma.hca-present and rdma.port-state', () => {
  it('names NCCL_IB_HCA entries the host does not have', () => {
    const result = check([host('h', { devinfo, 'env.sh': env('export NCCL_IB_HCA=mlx5_0,mlx5_9:1') })], roce);
    const [missing] = findingsOf(result, 'rdma.hca-present');
    expect(missing?.severity).toBe('error');
    expect(missing?.message).toMatch(/names mlx5_9:1, which this host does not have/);
    expect(missing?.evidence).toBe('env.sh:1 NCCL_IB_HCA=mlx5_0,mlx5_9:1');
  });

  it('matches entries by prefix unless `=` asks for exact names', () => {
    expect(
      findingsOf(
        check([host('h', { devinfo, 'env.sh': env('export NCCL_IB_HCA=mlx5') })], roce),
        'rdma.hca-present',
      )[0]?.severity,
    ).toBe('pass');
    expect(
      findingsOf(
        check([host('h', { devinfo, 'env.sh': env('export NCCL_IB_HCA==mlx5') })], roce),
        'rdma.hca-present',
      )[0]?.severity,
    ).toBe('error');
  });

  it('a down port is an error when NCCL_IB_HCA selects it, a warning when NCCL_IB_HCA is not known, nothing when excluded', () => {
    expect(
      nonPass(check([host('h', { devinfo: downDevinfo, 'env.sh': env('export NCCL_IB_HCA=mlx5') })], roce)),
    ).toEqual(['error rdma.port-state h']);
    expect(nonPass(check([host('h', { devinfo: downDevinfo })], roce))).toEqual(['warn rdma.port-state h']);
    // Excluded with ^: not the job's problem. Its bogus 2.5 Gb/s and MTU 1024 are never reported either.
    expect(
      nonPass(
        check([host('h', { devinfo: downDevinfo, 'env.sh': env('export NCCL_IB_HCA=^=mlx5_3') })], roce),
      ),
    ).toEqual([]);
  });

  it('takes the worse reading when rdma link and ibv_devinfo disagree', () => {
    const link = fixture('check', 'port-down', 'rdma_links.log');
    const result = check([host('h', { devinfo, link })], roce);
    expect(findingsOf(result, 'rdma.port-state')[0]?.message).toMatch(/mlx5_3\/1 DOWN\/DISABLED/);
  });

  it('real capture: a PORT_DOWN Ethernet port on a DeepEP host', () => {
    const result = check(
      [host('deepep', { devinfo: fixture('ibv-devinfo', 'deepep-issue60-plain-port-down.txt') })],
      roce,
    );
    expect(findingsOf(result, 'rdma.port-state')[0]?.message).toMatch(/mlx5_12\/1 DOWN/);
    expect(findingsOf(result, 'rdma.port-state')[0]?.severity).toBe('warn');
  });
});

describe('rdma.link-layer, rdma.rate, rdma.mtu', () => {
  it('Ethernet ports on an InfiniBand fabric are an error', () => {
    const result = check([host('h', { devinfo })], { fabric: getFabricPreset('ib-ndr-400g') });
    expect(nonPass(result)).toEqual(['error rdma.link-layer h']);
  });

  it('4X x 100 Gb/s passes at 400G and fails on an 800G fabric', () => {
    expect(findingsOf(check([host('h', { devinfo })], roce), 'rdma.rate')[0]?.severity).toBe('pass');
    const slow = findingsOf(
      check([host('h', { devinfo })], { fabric: getFabricPreset('roce-800g') }),
      'rdma.rate',
    )[0];
    expect(slow?.severity).toBe('error');
    expect(slow?.evidence).toMatch(/^devinfo:\d+ mlx5_0 port 1 4X x 100 Gb\/s = 400 Gb\/s$/);
  });

  it('real Azure capture: active MTU 1024 is a warning', () => {
    const result = check(
      [host('azure', { devinfo: fixture('ibv-devinfo', 'azhpc-pr44-plain-two-hcas-truncated.txt') })],
      roce,
    );
    expect(findingsOf(result, 'rdma.mtu')[0]?.severity).toBe('warn');
    expect(findingsOf(result, 'rdma.mtu')[0]?.message).toMatch(/rdmaP23800p0s2\/1 1024/);
  });
});

describe('rdma.firmware', () => {
  it('warns on the host whose HCA runs another version than the cluster, per NIC model', () => {
    const odd = devinfo.replace(
      /(hca_id:\tmlx5_2\n\ttransport:\t+InfiniBand \(0\)\n\tfw_ver:\t+)28\.39\.2048/,
      '$128.36.1010',
    );
    const result = check([host('a', { devinfo }), host('b', { devinfo: odd }), host('c', { devinfo })], roce);
    expect(nonPass(result)).toEqual(['warn rdma.firmware b']);
    expect(findingsOf(result, 'rdma.firmware').find((finding) => finding.host === 'b')?.message).toMatch(
      /mlx5_2 28\.36\.1010/,
    );
  });

  it('two NIC models on one real host are not a mismatch', () => {
    const result = check(
      [host('deepep', { devinfo: fixture('ibv-devinfo', 'deepep-issue60-plain-port-down.txt') })],
      roce,
    );
    expect(findingsOf(result, 'rdma.firmware')[0]?.severity).toBe('pass');
  });
});

describe('rdma.gid-index', () => {
  it('index 3 is RoCE v2 on every HCA: pass; index 2 is RoCE v1: error', () => {
    expect(
      findingsOf(
        check([host('h', { devinfo, gids, 'env.sh': env('export NCCL_IB_GID_INDEX=3') })], roce),
        'rdma.gid-index',
      )[0]?.severity,
    ).toBe('pass');
    const v1 = findingsOf(
      check([host('h', { devinfo, gids, 'env.sh': env('export NCCL_IB_GID_INDEX=2') })], roce),
      'rdma.gid-index',
    )[0];
    expect(v1?.severity).toBe('error');
    expect(v1?.evidence).toMatch(/^gids:\d+ mlx5_0 1 2 0000:0000:0000:0000:0000:ffff:0ac8:010a v1$/);
  });

  it('reads the GID table of ibv_devinfo -v when show_gids was not captured', () => {
    const v1 = findingsOf(
      check([host('h', { devinfo, 'env.sh': env('export NCCL_IB_GID_INDEX=0') })], roce),
      'rdma.gid-index',
    )[0];
    expect(v1?.severity).toBe('error');
    expect(v1?.evidence).toMatch(/GID\[0\] fe80:.*RoCE v1/);
  });

  it('real pod capture: GIDs start at 4, so the usual index 3 selects nothing and 7 is the v2 IPv4 GID', () => {
    const pod = fixture('show-gids', 'nccl-issue1573-pod-macvlan-tabs-truncated.txt');
    const three = findingsOf(
      check(
        [host('pod', { pod, 'env.sh': env('export NCCL_IB_GID_INDEX=3\nexport NCCL_IB_HCA=mlx5_0,mlx5_1') })],
        roce,
      ),
      'rdma.gid-index',
    )[0];
    expect(three?.severity).toBe('error');
    expect(three?.message).toMatch(/mlx5_0\/1 has no GID 3; mlx5_1\/1 has no GID 3/);
    expect(
      findingsOf(
        check(
          [
            host('pod', {
              pod,
              'env.sh': env('export NCCL_IB_GID_INDEX=7\nexport NCCL_IB_HCA=mlx5_0,mlx5_1'),
            }),
          ],
          roce,
        ),
        'rdma.gid-index',
      )[0]?.severity,
    ).toBe('pass');
  });

  it('does not apply on InfiniBand', () => {
    expect(
      findingsOf(
        check([host('h', { devinfo, gids, 'env.sh': env('export NCCL_IB_GID_INDEX=2') })], {
          fabric: getFabricPreset('ib-ndr-400g'),
        }),
        'rdma.gid-index',
      ),
    ).toEqual([]);
  });
});

describe('rdma.perftest-bw', () => {
  const loopback = fixture('perftest', 'superbench-fixture-ib_write_bw-loopback-all-sizes-interleaved.log');
  it('real HDR loopback: 23277.91 MB/sec (195 Gb/s) passes at 200G and fails at 400G', () => {
    const at200 = findingsOf(
      check([host('h', { 'bw.log': loopback })], { fabric: getFabricPreset('ib-hdr-200g') }),
      'rdma.perftest-bw',
    )[0];
    expect(at200?.severity).toBe('pass');
    expect(at200?.evidence).toBe('bw.log:62 4194304 B: BW average 23277.91 MB/sec');
    expect(at200?.measuredGbps as number).toBeCloseTo((23277.91 * 1048576 * 8) / 1e9, 2);
    const at400 = findingsOf(
      check([host('h', { 'bw.log': loopback })], { fabric: getFabricPreset('ib-ndr-400g') }),
      'rdma.perftest-bw',
    )[0];
    expect(at400?.severity).toBe('error');
    expect(at400?.message).toMatch(/48\.\d% of 400 Gb\/s/);
  });

  it('sweeps that stop below 64 KiB and bidirectional runs are noted, not judged', () => {
    const short = check(
      [host('h', { 'p.txt': fixture('perftest', 'perftest-issue132-ib_write_bw-all-gbits-truncated.txt') })],
      roce,
    );
    expect(findingsOf(short, 'rdma.perftest-bw')).toEqual([]);
    expect(short.metrics.notes.join('\n')).toMatch(/no message of 64 KiB or more/);
    const bidir = check(
      [host('h', { 'p.txt': fixture('perftest', 'blog-ib_write_bw-bidirectional-roce-gbits.txt') })],
      roce,
    );
    expect(findingsOf(bidir, 'rdma.perftest-bw')).toEqual([]);
    expect(bidir.metrics.notes.join('\n')).toMatch(/is bidirectional/);
  });
});
