/**
 * The testbed's `loss` and `rate` faults are real (root, iproute2 and iperf3 needed; CI has them):
 * - loss: the switch drops the asked fraction of the UDP datagrams across a lossy port, in both
 *   directions (counted by the drop class's bfifo in `tc -s`), and every one it dropped is one the
 *   receiver never got: the drop is network loss, not a local drop the sender retries. TCP across
 *   it retransmits (nstat in the sender's namespace);
 * - rate: TCP across a slowed port gets at most that rate, in both directions, and the slowed
 *   port's buffer is the switch's (Reno's slow start overflows it: no socket holds its queue down);
 * - a 4-host all_reduce and reduce_scatter with `-c 1` across a lossy and a slow port finish with
 *   0 wrong elements.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listNamespaces, parseQdiscDrops, testbedDown } from '../../src/testbed/index.js';
import { which } from '../bench/helpers.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canNetns = isRoot && which('ip') && which('tc') && spawnSync('ip', ['netns', 'list']).status === 0;
const haveIperf3 = which('iperf3') && which('nstat');
if (!canNetns)
  console.log('skipping testbed fault tests: they need root and iproute2 (ip, tc); CI runs them as root');
else if (!haveIperf3)
  console.log(
    'skipping the loss and rate measurements: they need iperf3 and nstat (apt-get install iperf3 iproute2)',
  );

const NAME = `tf${process.pid % 100000}`;
const LOSS = 0.05;
const SLOW_RATE_BPS = 100e6;

function inNamespace(namespace: string, command: string[], timeoutMs = 60_000): string {
  const result = spawnSync('ip', ['netns', 'exec', namespace, ...command], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (result.status !== 0)
    throw new Error(
      `${command.join(' ')} in ${namespace} failed (${result.status ?? result.signal}): ${result.stderr}`,
    );
  return result.stdout;
}

/** The `dropped` count of qdisc `handle` on `dev` in the switch. */
function qdiscDrops(dev: string, handle: string): number {
  const text = spawnSync('tc', ['-n', `${NAME}-sw`, '-s', 'qdisc', 'show', 'dev', dev], {
    encoding: 'utf8',
  }).stdout;
  const qdisc = parseQdiscDrops(text).find((q) => q.handle === handle);
  if (!qdisc) throw new Error(`no qdisc ${handle} on ${dev}:\n${text}`);
  return qdisc.dropped;
}

function nstatCounter(namespace: string, counter: string): number {
  const match = new RegExp(`^${counter}\\s+(\\d+)`, 'm').exec(
    inNamespace(namespace, ['nstat', '-az', counter]),
  );
  return match ? Number(match[1]) : 0;
}

interface Iperf3End {
  sum?: { packets: number; lost_packets: number };
  sum_received?: { bits_per_second: number };
}

/** The drop of the one datagram iperf3's UDP test starts with leaves it waiting: a bounded number of tries. */
const IPERF3_ATTEMPTS = 4;
const IPERF3_ATTEMPT_TIMEOUT_MS = 15_000;

/**
 * One iperf3 run from host `client` to a server on h0 (`-R`: from h0 to it): its `end` section, and
 * how much each of `counters` grew during the attempt that succeeded.
 */
function iperf3(
  client: string,
  args: string[],
  needs: 'sum' | 'sum_received',
  counters: (() => number)[] = [],
): { end: Iperf3End; counted: number[] } {
  let last = '';
  for (let attempt = 0; attempt < IPERF3_ATTEMPTS; attempt++) {
    const before = counters.map((counter) => counter());
    const server: ChildProcess = spawn(
      'ip',
      ['netns', 'exec', `${NAME}-h0`, 'iperf3', '-s', '-1', '-p', '5201'],
      { stdio: 'ignore' },
    );
    try {
      // Give the server a moment to listen (a refused connection is simply tried again).
      spawnSync('sleep', ['0.2']);
      const run = spawnSync(
        'ip',
        ['netns', 'exec', client, 'iperf3', '-c', '10.99.0.1', '-p', '5201', '-J', ...args],
        { encoding: 'utf8', timeout: IPERF3_ATTEMPT_TIMEOUT_MS },
      );
      last = `${run.status ?? run.signal}: ${run.stdout.slice(0, 500)}${run.stderr}`;
      if (run.status === 0) {
        const end = (JSON.parse(run.stdout) as { end: Iperf3End }).end;
        if (end[needs]) return { end, counted: counters.map((counter, index) => counter() - before[index]!) };
      }
    } finally {
      server.kill('SIGKILL');
    }
  }
  throw new Error(`iperf3 ${args.join(' ')} from ${client} failed ${IPERF3_ATTEMPTS} times; last: ${last}`);
}

describe.skipIf(!canNetns || !haveIperf3)('testbed faults are real (root)', () => {
  beforeAll(async () => {
    const up = await runCli([
      'testbed',
      'up',
      '--name',
      NAME,
      '--hosts',
      '3',
      '--rate',
      '1gbit',
      '--buffer',
      '256K',
      '--fault',
      `h1:loss=${LOSS}`,
      '--fault',
      'h2:rate=100Mbps',
    ]);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(
      'faults (both directions, switch side): h1 loses 5% of packets, h2 at 100 Mbit/s',
    );
  });
  afterAll(async () => {
    await testbedDown(NAME).catch(() => undefined);
    expect((await listNamespaces()).filter((ns) => ns.startsWith(`${NAME}-`))).toEqual([]);
  });

  it.each([
    ['from the host', [] as string[], 'u1'],
    ['towards the host', ['-R'], 'p1'],
  ])(
    'loss %s: the switch drops the asked fraction of UDP, and each drop is lost',
    (_direction, reverse, dev) => {
      // 5000 datagrams of 1200 bytes at 40 Mbit/s: far below the port rate, so only the fault drops.
      const {
        end,
        counted: [drops = 0],
      } = iperf3(`${NAME}-h1`, ['-u', '-b', '40M', '-l', '1200', '-n', '6000000', ...reverse], 'sum', [
        () => qdiscDrops(dev, '20:'),
      ]);
      const { packets, lost_packets: lost } = end.sum!;
      expect(packets).toBeGreaterThanOrEqual(4900);
      // The switch dropped the asked fraction of the datagrams sent. Binomial: 250 +- 15 expected of
      // 5000; the band is about 5 standard deviations wide each side.
      expect(drops / packets).toBeGreaterThan(0.03);
      expect(drops / packets).toBeLessThan(0.075);
      // Switch drops are datagrams the receiver never got. A drop returned to the sender and retried
      // would show drops but (almost) no loss. Some drops are not counted as lost by iperf3 (its
      // control connection, and with -R datagrams past the last one the receiver saw: seen in a CI-like
      // run as 259 lost of 313 dropped), so the bound is three quarters of the drops.
      expect(lost).toBeGreaterThanOrEqual(Math.floor(0.75 * drops));
    },
  );

  it('loss: TCP across the lossy port retransmits what the switch dropped', () => {
    const {
      end,
      counted: [drops = 0, retransmitted = 0],
    } = iperf3(`${NAME}-h1`, ['-n', '8M'], 'sum_received', [
      () => qdiscDrops('u1', '20:'),
      () => nstatCounter(`${NAME}-h1`, 'TcpRetransSegs'),
    ]);
    expect(end.sum_received!.bits_per_second).toBeGreaterThan(0);
    expect(drops).toBeGreaterThan(0);
    // A dropped skb holds up to 4 segments (gso_max_segs), each retransmitted.
    expect(retransmitted).toBeGreaterThanOrEqual(drops);
  });

  it.each([
    ['from the host', [] as string[]],
    ['towards the host', ['-R']],
  ])('rate %s: TCP gets at most the slowed rate', (_direction, reverse) => {
    const { end } = iperf3(`${NAME}-h2`, ['-n', '6M', ...reverse], 'sum_received');
    expect(end.sum_received!.bits_per_second).toBeLessThanOrEqual(SLOW_RATE_BPS * 1.1);
    for (const dev of ['p2', 'u2']) {
      expect(
        spawnSync('tc', ['-n', `${NAME}-sw`, 'class', 'show', 'dev', dev], { encoding: 'utf8' }).stdout,
      ).toMatch(/class htb 1:10 .*rate 100Mbit/);
    }
    // The other ports keep the testbed's rate.
    expect(
      spawnSync('tc', ['-n', `${NAME}-sw`, 'class', 'show', 'dev', 'p0'], { encoding: 'utf8' }).stdout,
    ).toMatch(/class htb 1:10 .*rate 1Gbit/);
  });

  it("rate from the host: the slowed port's buffer is the switch's, so Reno's slow start overflows it", () => {
    // Through the fault hop's bridge the host's frames are charged to no socket, so TCP Small Queues
    // (about 1 ms of the sender's pacing rate, 25-50 KB here) does not hold the 256K bfifo at u2 down:
    // Reno doubles its window until that buffer overflows, as at a switch port. With the tc mirred
    // redirect the hop had before 2026-12-04, this queue never filled and this count stayed 0.
    const {
      end,
      counted: [overflow = 0],
    } = iperf3(`${NAME}-h2`, ['-n', '6M', '-C', 'reno'], 'sum_received', [() => qdiscDrops('u2', '10:')]);
    expect(end.sum_received!.bits_per_second).toBeGreaterThan(0);
    expect(overflow).toBeGreaterThan(0);
  });
});

describe.skipIf(!canNetns)('bench tcp across a lossy and a slow port (root)', () => {
  const name = `tg${process.pid % 100000}`;
  afterAll(async () => {
    await testbedDown(name).catch(() => undefined);
  });

  it('4 hosts, h1:loss=0.01, h2 at a quarter of --rate: all_reduce and reduce_scatter with -c 1 have 0 wrong', async () => {
    const up = await runCli([
      'testbed',
      'up',
      '--name',
      name,
      '--hosts',
      '4',
      '--rate',
      '1gbit',
      '--buffer',
      '256K',
      '--fault',
      'h1:loss=0.01',
      '--fault',
      'h2:rate=250Mbps',
    ]);
    expect(up.code).toBe(0);
    // The commands see the faults the testbed was made with.
    const env = await runCli([
      'testbed',
      'run',
      '--name',
      name,
      '--',
      'sh',
      '-c',
      'echo "$RANK $AIFABRIC_TESTBED_FAULTS"',
    ]);
    expect(env.code).toBe(0);
    expect(env.stdout.trim().split('\n').sort()).toEqual(
      [0, 1, 2, 3].map((rank) => `${rank} h1:loss=0.01,h2:rate=250000000bit`),
    );
    for (const [op, type, redop, sizes] of [
      // 256 KiB, 1 MiB and 4 MiB: a rank's chunk of the largest exceeds the 1 MiB slice.
      ['all_reduce', 'float', 'sum', ['-b', '256K', '-e', '4M', '-f', '4']],
      ['reduce_scatter', 'int32', 'max', ['-b', '256K', '-e', '4M', '-f', '4']],
      // 150001 and 600004 doubles: counts that divide neither by 4 ranks nor by the slice.
      ['all_reduce', 'double', 'min', ['-b', '1200008', '-e', '4800032', '-f', '4']],
    ] as const) {
      const args = [
        'bench',
        'tcp',
        '--op',
        op,
        '-d',
        type,
        '-o',
        redop,
        ...sizes,
        '-n',
        '2',
        '-w',
        '1',
        '-c',
        '1',
        '--timeout',
        '30',
        '--json',
      ];
      const run = await runCli(
        ['testbed', 'run', '--name', name, '--', process.execPath, CLI_PATH, ...args],
        { timeoutMs: 150_000 },
      );
      // Never a hang: the run ends by itself (our own kill would show as a signal).
      expect(run.signal).toBeNull();
      expect(run.stderr.split('\n')[0] ?? '').not.toMatch(/aifabric:/);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result.metrics.rows).toHaveLength(sizes[3] === '4M' ? 3 : 2);
      expect(
        Math.max(...result.metrics.rows.map((row: { sizeBytes: number }) => row.sizeBytes)),
      ).toBeGreaterThan(4 * 2 ** 20 - 64);
      for (const row of result.metrics.rows) {
        expect(row.outOfPlace.wrong).toBe(0);
        expect(row.inPlace.wrong).toBe(0);
      }
      expect(result.metrics.outOfBounds).toBe(0);
    }
    // The loss was there: the switch dropped frames of h1 in both directions.
    const drops = ['p1', 'u1'].map(
      (dev) =>
        /qdisc bfifo 20: [^\n]*\n\s*Sent \d+ bytes \d+ pkt \(dropped (\d+)/.exec(
          spawnSync('tc', ['-n', `${name}-sw`, '-s', 'qdisc', 'show', 'dev', dev], { encoding: 'utf8' })
            .stdout,
        )?.[1],
    );
    for (const count of drops) expect(Number(count)).toBeGreaterThan(0);
  });
});
