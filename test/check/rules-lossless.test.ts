import { describe, expect, it } from 'vitest';
import { getFabricPreset } from '../../src/spec/index.js';
import { check, findingsOf, fixture, host, nonPass } from './helpers.js';

const roce = { fabric: getFabricPreset('roce-400g') };
const before = fixture('check', 'healthy-roce', 'counters', 'ens108np0.t0');
const after = fixture('check', 'healthy-roce', 'counters', 'ens108np0.t1');
const env = 'export NCCL_IB_TC=106\nexport NCCL_IB_GID_INDEX=3\n';
const bump = (text: string, counter: string, value: number) =>
  text.replace(new RegExp(`(^\\s+${counter}: )\\d+$`, 'm'), `$1${value}`);

describe('lossless.pfc-pause and lossless.discards (ethtool -S, two captures)', () => {
  it('no growth between captures passes both', () => {
    const result = check([host('h', { a: before, b: after, 'env.sh': env })], roce);
    expect(nonPass(result)).toEqual([]);
    expect(findingsOf(result, 'lossless.pfc-pause')[0]?.message).toMatch(
      /ens108np0: no PFC pause growth between 2 captures/,
    );
  });

  it('pause frames that grow on the RDMA priority warn, with the delta; order comes from the counters, not the file names', () => {
    const grown = bump(bump(after, 'tx_prio3_pause', 90210), 'tx_prio3_pause_duration', 4_000_000);
    for (const files of [
      { a: before, b: grown },
      { a: grown, b: before },
    ]) {
      const [pause] = findingsOf(check([host('h', { ...files, 'env.sh': env })], roce), 'lossless.pfc-pause');
      expect(pause?.severity).toBe('warn');
      expect(pause?.message).toMatch(/prio 3 rx \+0 tx \+90210 \(4000000 us paused\)/);
      expect(pause?.evidence).toMatch(/^[ab]:\d+ tx_prio3_pause: 90210$/);
    }
  });

  it('pauses on a priority other than the RDMA one are named as such', () => {
    const [pause] = findingsOf(
      check([host('h', { a: before, b: bump(after, 'rx_prio0_pause', 12), 'env.sh': env })], roce),
      'lossless.pfc-pause',
    );
    expect(pause?.message).toMatch(/priority 0 is not the RDMA priority 3/);
  });

  it('the pause-storm watchdog firing is an error even with one capture', () => {
    const result = check(
      [host('h', { b: bump(after, 'tx_pause_storm_error_events', 2), 'env.sh': env })],
      roce,
    );
    expect(nonPass(result)).toEqual(['error lossless.pfc-pause h']);
  });

  it('discards on the lossless priority: growth between captures is an error, a count since boot a warning', () => {
    expect(
      findingsOf(
        check([host('h', { a: before, b: bump(after, 'rx_prio3_discards', 17), 'env.sh': env })], roce),
        'lossless.discards',
      )[0]?.severity,
    ).toBe('error');
    expect(
      findingsOf(
        check([host('h', { b: bump(after, 'rx_prio3_discards', 17), 'env.sh': env })], roce),
        'lossless.discards',
      )[0]?.severity,
    ).toBe('warn');
    // Discards on another priority are not the lossless class's problem.
    expect(
      findingsOf(
        check([host('h', { a: before, b: bump(after, 'rx_prio0_discards', 17), 'env.sh': env })], roce),
        'lossless.discards',
      )[0]?.severity,
    ).toBe('pass');
  });

  it('NCCL_IB_TC picks the priority: TC 34 is DSCP 8, priority 1 on the default map', () => {
    const result = check(
      [host('h', { a: before, b: bump(after, 'rx_prio1_discards', 5), 'env.sh': 'export NCCL_IB_TC=34\n' })],
      roce,
    );
    expect(findingsOf(result, 'lossless.discards')[0]?.message).toMatch(/lossless priority 1/);
  });
});

describe('lossless.traffic-class', () => {
  it('unset NCCL_IB_TC warns; a host that differs from the rest is an error', () => {
    expect(nonPass(check([host('h', { 'env.sh': 'export NCCL_IB_GID_INDEX=3\n' })], roce))).toEqual([
      'warn lossless.traffic-class h',
    ]);
    const hosts = ['a', 'b', 'c'].map((name) =>
      host(name, { 'env.sh': `export NCCL_IB_TC=${name === 'b' ? 41 : 106}\n` }),
    );
    expect(nonPass(check(hosts, roce))).toEqual(['error lossless.traffic-class b']);
  });

  it('does not apply to InfiniBand or TCP fabrics', () => {
    expect(
      nonPass(
        check([host('h', { 'env.sh': 'export NCCL_IB_GID_INDEX=3\n' })], {
          fabric: getFabricPreset('ib-ndr-400g'),
        }),
      ),
    ).toEqual([]);
  });
});

describe('lossless.pfc-priority and lossless.ecn (mlnx_qos, SONiC config_db.json)', () => {
  const sonic = fixture('check', 'qos', 'sonic-rest-test-qos-config-azure-lossless.json');
  const mlnxDoc = fixture('check', 'qos', 'mellanox-doc2792-mlnx_qos-pfc-0267.txt');

  it('real mlnx_qos page: PFC on 0,2,6,7 but RoCE on priority 3 is an error', () => {
    const [pfc] = findingsOf(
      check([host('h', { qos: mlnxDoc, 'env.sh': env })], roce),
      'lossless.pfc-priority',
    );
    expect(pfc?.severity).toBe('error');
    expect(pfc?.message).toMatch(
      /eth2 \(mlnx_qos\): PFC is on priority 0,2,6,7 but RDMA traffic uses priority 3/,
    );
    expect(pfc?.evidence).toBe('qos:16 enabled 1 0 1 0 0 0 1 1');
  });

  it('healthy host mlnx_qos: PFC on priority 3 only passes', () => {
    expect(
      findingsOf(
        check(
          [host('h', { qos: fixture('check', 'healthy-roce', 'qos-ens108np0.txt'), 'env.sh': env })],
          roce,
        ),
        'lossless.pfc-priority',
      )[0]?.severity,
    ).toBe('pass');
  });

  it('real SONiC QoS config: pfc_enable 3,4 warns (one lossless class too many), AZURE_LOSSLESS 104 KB / 312 KB is inside the band', () => {
    const result = check([host('leaf1', { 'config_db.json': sonic }), host('h', { 'env.sh': env })], {
      fabric: getFabricPreset('roce-100g'),
    });
    expect(nonPass(result)).toEqual(['warn lossless.pfc-priority leaf1']);
    const [ecn] = findingsOf(result, 'lossless.ecn');
    expect(ecn?.message).toMatch(
      /Kmin 104000 B, Kmax 312000 B within Kmin 25 KB to 1500 KB, Kmax up to 3000 KB at 100 Gb\/s/,
    );
    expect(ecn?.evidence).toMatch(
      /^config_db\.json:\d+ WRED_PROFILE AZURE_LOSSLESS ecn=ecn_all green_min=104000 green_max=312000$/,
    );
  });

  it("ECN thresholds scale with speed: the DCQCN paper's 5 KB Kmin is too early at 400G; marking off or Kmin >= Kmax are flagged", () => {
    const edit = (min: string, max: string, ecn = 'ecn_all') =>
      sonic
        .replace('"green_max_threshold": "312000"', `"green_max_threshold": "${max}"`)
        .replace('"green_min_threshold": "104000"', `"green_min_threshold": "${min}"`)
        .replace('"ecn":"ecn_all"', `"ecn":"${ecn}"`);
    const ecnOf = (text: string) =>
      findingsOf(check([host('leaf1', { 'config_db.json': text })], roce), 'lossless.ecn')[0];
    expect(ecnOf(edit('5000', '200000'))?.severity).toBe('warn');
    expect(ecnOf(edit('5000', '200000'))?.message).toMatch(/marks so early/);
    expect(ecnOf(edit('104000', '312000', 'ecn_none'))?.message).toMatch(/does not mark ECN/);
    expect(ecnOf(edit('400000', '300000'))?.severity).toBe('error');
    expect(ecnOf(edit('8000000', '12000000'))?.message).toMatch(/marks so late/);
  });
});

describe('pairing ethtool captures without an interface name', () => {
  const strip = (text: string) => text.replace(/^# ethtool -S \S+\n/, '');
  it('pairs eth2.before with eth2.after, never eth2 with eth3', () => {
    const grown = bump(after, 'tx_prio3_pause', 500);
    const result = check(
      [
        host('h', {
          'eth2.before': strip(before),
          'eth2.after': strip(grown),
          'eth3.before': strip(after),
          'eth3.after': strip(after),
          'env.sh': env,
        }),
      ],
      roce,
    );
    const pauses = findingsOf(result, 'lossless.pfc-pause');
    expect(pauses.map((finding) => finding.severity)).toEqual(['warn', 'pass']);
    expect(pauses[0]?.message).toMatch(
      /^eth2 \(interface not named\): PFC pauses grew between eth2\.before and eth2\.after/,
    );
  });
});
