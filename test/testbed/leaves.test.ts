/**
 * The two-tier testbed and the mtu, cpu and uplink-rate faults are real (root, iproute2 and iperf3
 * needed; CI has them). One 6-host testbed under 2 leaves (200 Mbit/s ports, 50 Mbit/s uplinks,
 * h1:mtu=1400, h4:cpu=0.25):
 * - hosts sit under leaves contiguously (h0-h2 under leaf0, h3-h5 under leaf1), recorded in the state;
 * - TCP between leaves gets at most the uplink's rate (within 20%), in one leaf more than the uplink's
 *   and at most the port's;
 * - the MTU shows on h1's eth0 and its switch port; a busy loop `testbed run` starts on h4 gets
 *   at most 0.35 of a core;
 * - `testbed fault leaf1:uplink-rate=20Mbps` on the running testbed slows that uplink;
 * - `down` leaves nothing: namespaces, cgroups, state, veths in the root namespace.
 * Every iperf3 run is 2 s; the whole file takes about 20 s.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createCpuCgroup,
  listNamespaces,
  readState,
  stateDir,
  testbedDown,
} from '../../src/testbed/index.js';
import { which } from '../bench/helpers.js';
import { runCli } from '../helpers/run-cli.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canNetns = isRoot && which('ip') && which('tc') && spawnSync('ip', ['netns', 'list']).status === 0;
const haveIperf3 = which('iperf3');
if (!canNetns)
  console.log('skipping two-tier testbed tests: they need root and iproute2 (ip, tc); CI runs them as root');
else if (!haveIperf3)
  console.log('skipping the two-tier testbed tests: they need iperf3 (apt-get install iperf3)');

const NAME = `tl${process.pid % 100000}`;
const PORT_RATE = 200e6;
const UPLINK_RATE = 50e6;
const mine = (namespaces: string[]): string[] => namespaces.filter((ns) => ns.startsWith(`${NAME}-`));
const address = (host: number): string => `10.99.0.${host + 1}`;

/** TCP from host `from` to host `to` for 2 s: the receiver's bits per second (a few tries: a refused connect is tried again). */
function iperf3(from: number, to: number): number {
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const server: ChildProcess = spawn(
      'ip',
      ['netns', 'exec', `${NAME}-h${to}`, 'iperf3', '-s', '-1', '-p', '5201'],
      { stdio: 'ignore' },
    );
    try {
      spawnSync('sleep', ['0.2']);
      const run = spawnSync(
        'ip',
        ['netns', 'exec', `${NAME}-h${from}`, 'iperf3', '-c', address(to), '-p', '5201', '-t', '2', '-J'],
        { encoding: 'utf8', timeout: 15_000 },
      );
      last = `${run.status ?? run.signal}: ${run.stdout.slice(0, 300)}${run.stderr}`;
      if (run.status === 0) {
        const bps = (JSON.parse(run.stdout) as { end: { sum_received?: { bits_per_second: number } } }).end
          .sum_received?.bits_per_second;
        if (bps !== undefined) return bps;
      }
    } finally {
      server.kill('SIGKILL');
    }
  }
  throw new Error(`iperf3 h${from} -> h${to} failed 3 times; last: ${last}`);
}

function mtuOf(namespace: string, dev: string): number {
  return Number(
    / mtu (\d+)/.exec(
      spawnSync('ip', ['-n', namespace, 'link', 'show', 'dev', dev], { encoding: 'utf8' }).stdout,
    )?.[1],
  );
}

describe.skipIf(!canNetns || !haveIperf3)('two-tier testbed, mtu, cpu and uplink-rate faults (root)', () => {
  afterAll(async () => {
    await testbedDown(NAME).catch(() => undefined);
  });

  it('6 hosts under 2 leaves: placement, uplink cap across leaves only, mtu, cpu cap, a fault added live, and down leaves nothing', async () => {
    const up = await runCli([
      'testbed',
      'up',
      '--name',
      NAME,
      '--hosts',
      '6',
      '--leaves',
      '2',
      '--rate',
      '200mbit',
      '--uplink-rate',
      '50mbit',
      '--buffer',
      '128K',
      '--fault',
      'h1:mtu=1400',
      '--fault',
      'h4:cpu=0.25',
    ]);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(
      'leaves: leaf0 h0-h2, leaf1 h3-h5; uplinks to the spine at 50 Mbit/s each way',
    );
    expect(up.stdout).toContain(
      'faults (both directions, switch side): h1 MTU 1400, h4 capped at 0.25 cores',
    );
    const state = readState(NAME)!;
    expect(state.hostLeaves).toEqual([0, 0, 0, 1, 1, 1]);
    expect(state.leaves).toBe(2);
    expect(state.uplinkRateBps).toBe(UPLINK_RATE);
    expect(state.cgroups).toHaveLength(1);
    const cgroup = state.cgroups![0]!;
    expect(existsSync(cgroup)).toBe(true);
    // Each uplink is shaped at both ends (up: leaf to spine, dn: spine to leaf).
    for (const dev of ['up0', 'dn0', 'up1', 'dn1']) {
      expect(
        spawnSync('tc', ['-n', `${NAME}-sw`, 'class', 'show', 'dev', dev], { encoding: 'utf8' }).stdout,
      ).toMatch(/class htb 1:10 .*rate 50Mbit/);
    }

    // Across leaves: the uplink's rate, both ways; in one leaf: the port's. The upper bounds prove the
    // caps; the lower ones only that the traffic flows (a loaded CI machine measured 0.78 of 50 Mbit/s).
    for (const [from, to] of [
      [0, 3],
      [5, 2],
    ] as const) {
      const bps = iperf3(from, to);
      expect(bps, `h${from} -> h${to}`).toBeGreaterThan(UPLINK_RATE * 0.6);
      expect(bps, `h${from} -> h${to}`).toBeLessThan(UPLINK_RATE * 1.2);
    }
    // In one leaf no uplink is on the path: well above the uplink's rate (a loaded CI machine measured
    // 0.57 of the port's 200 Mbit/s), and never above the port's.
    const inLeaf = iperf3(0, 2);
    expect(inLeaf).toBeGreaterThan(UPLINK_RATE * 1.5);
    expect(inLeaf).toBeLessThan(PORT_RATE * 1.1);

    expect(mtuOf(`${NAME}-h1`, 'eth0')).toBe(1400);
    expect(mtuOf(`${NAME}-sw`, 'p1')).toBe(1400);
    expect(mtuOf(`${NAME}-h0`, 'eth0')).toBe(1500);

    // A 2 s busy loop on every host: h4's is capped at a quarter of a core.
    const loop =
      'const t0=Date.now(),c0=process.cpuUsage();while(Date.now()-t0<2000);const u=process.cpuUsage(c0);console.log(process.env.RANK,(u.user+u.system)/1e3/(Date.now()-t0))';
    const busy = await runCli(
      ['testbed', 'run', '--name', NAME, '--timeout', '30s', '--', process.execPath, '-e', loop],
      { timeoutMs: 40_000 },
    );
    expect(busy.code).toBe(0);
    const cores = new Map(
      busy.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ').map(Number) as [number, number]),
    );
    expect(cores.get(4)).toBeLessThanOrEqual(0.35);
    expect(cores.get(4)).toBeGreaterThan(0.1);

    // Live: a slower leaf1 uplink, and a rate fault on h3's port, which had no extra hop until now.
    const fault = await runCli([
      'testbed',
      'fault',
      '--name',
      NAME,
      '--fault',
      'leaf1:uplink-rate=20Mbps',
      '--fault',
      'h3:rate=100Mbps',
    ]);
    expect(fault.stderr).toBe('');
    expect(fault.code).toBe(0);
    expect(fault.stdout).toContain('added h3 at 100 Mbit/s, leaf1 uplink at 20 Mbit/s');
    const status = await runCli(['testbed', 'status', '--name', NAME]);
    expect(status.stdout).toContain(
      'faults (both directions, switch side): h1 MTU 1400, h3 at 100 Mbit/s, h4 capped at 0.25 cores, leaf1 uplink at 20 Mbit/s',
    );
    const slowed = iperf3(0, 4);
    expect(slowed).toBeGreaterThan(20e6 * 0.6);
    expect(slowed).toBeLessThan(20e6 * 1.2);
    // From h3 to h5 (one leaf): h3's port, now through its hop u3 at 100 Mbit/s.
    const slowPort = iperf3(3, 5);
    // Above the 20 Mbit/s uplink's rate, which is not on this path (a loaded CI machine measured 76 Mbit/s here).
    expect(slowPort).toBeGreaterThan(20e6 * 1.5);
    expect(slowPort).toBeLessThan(100e6 * 1.1);
    const again = await runCli(['testbed', 'fault', '--name', NAME, '--fault', 'leaf1:uplink-rate=10Mbps']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('leaf1 has uplink-rate given twice');

    const down = await runCli(['testbed', 'down', '--name', NAME, '--json']);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout).metrics.removedCgroups).toEqual([cgroup]);
    expect(mine(await listNamespaces())).toEqual([]);
    expect(existsSync(cgroup)).toBe(false);
    expect(existsSync(join(stateDir(), `${NAME}.json`))).toBe(false);
    expect(spawnSync('ip', ['-o', 'link', 'show', 'type', 'veth'], { encoding: 'utf8' }).stdout).not.toMatch(
      /\b(up|dn)[01]@/,
    );

    // A cgroup of this testbed that no state names (its state was lost) is still aifabric's by its name: down removes it.
    const orphan = createCpuCgroup(`${NAME}-h9`, 0.5);
    expect((await testbedDown(NAME)).removedCgroups).toEqual([orphan]);
    expect(existsSync(orphan)).toBe(false);
  });
});
