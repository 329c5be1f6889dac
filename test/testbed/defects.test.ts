/**
 * Defect 15 of issue 9 and the testbed's share of defect 17, each through the built CLI as a user
 * would run it: exit code and first stderr line.
 * - bad --buffer, --rate and --fault are refused up front (exit 2), before any namespace exists;
 * - a killed `up` leaves an incomplete testbed that `run` refuses and `down` removes;
 * - `down` removes only namespaces aifabric made (NAME-h7, NAME-sw made by someone else stay);
 * - two `up` (or an `up` and a `down`) of one name at once: the second exits 3 naming the holder;
 * - `run --timeout` ends every run (exit 3), never a hang;
 * - `up` and `down` take --save and --db.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listNamespaces, stateDir, testbedDown } from '../../src/testbed/index.js';
import { which } from '../bench/helpers.js';
import { runCli } from '../helpers/run-cli.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canNetns = isRoot && which('ip') && which('tc') && spawnSync('ip', ['netns', 'list']).status === 0;
if (!canNetns)
  console.log('skipping the testbed defect tests that need root and iproute2 (ip, tc); CI runs them as root');

const firstLine = (text: string): string => text.split('\n')[0] ?? '';
const NAME = `td${process.pid % 100000}`;
const mine = (namespaces: string[], name = NAME): string[] =>
  namespaces.filter((ns) => ns.startsWith(`${name}-`));
const hasNamespace = (ns: string): boolean =>
  spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .some((line) => line.split(' ')[0] === ns);

/** Calls `act(child)` once `ready()` holds while the child runs (polled; bounded by the child's life). */
function when(ready: () => boolean, act: (child: ChildProcess) => void) {
  return (child: ChildProcess): void => {
    let done = false;
    const poll = setInterval(() => {
      if (!done && ready()) {
        done = true;
        clearInterval(poll);
        act(child);
      }
    }, 20);
    child.on('exit', () => clearInterval(poll));
  };
}

describe('testbed up refuses bad values up front (exit 2)', () => {
  it.each([
    [
      ['--rate', '1gbit', '--buffer', '8G'],
      'aifabric: invalid value for --buffer: 8589934592 bytes (expected at most 4294967295, the largest bfifo limit tc takes)',
    ],
    [
      ['--rate', '1000Tbps', '--buffer', '64K'],
      'aifabric: invalid value for --rate: 1000000 Gbit/s (expected at most 800 Gbit/s, the fastest Ethernet port)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h4:loss=0.01'],
      'aifabric: invalid value for --fault: "h4:loss=0.01" (unknown host h4: a 4-host testbed has h0..h3)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h1:jitter=1ms'],
      'aifabric: invalid value for --fault: "h1:jitter=1ms" (unknown kind "jitter": expected one of loss, rate, mtu, cpu (or leafK:uplink-rate=RATE))',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h1:loss=1.5'],
      'aifabric: invalid value for --fault: "h1:loss=1.5" (loss must be a fraction above 0 and below 1, e.g. 0.01 for 1%)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h1:loss=0'],
      'aifabric: invalid value for --fault: "h1:loss=0" (loss must be a fraction above 0 and below 1, e.g. 0.01 for 1%)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h2:rate=10Gbps'],
      'aifabric: invalid value for --fault: "h2:rate=10Gbps" (rate 10 Gbit/s is above --rate 1 Gbit/s: a fault can only slow a port)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h1'],
      'aifabric: invalid value for --fault: "h1" (expected HOST:KIND=VALUE, e.g. h1:loss=0.01, h2:rate=250Mbps, h3:mtu=1400, h4:cpu=0.25 or leaf1:uplink-rate=50Mbps)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h1:mtu=100'],
      'aifabric: invalid value for --fault: "h1:mtu=100" (mtu must be a whole number of bytes from 576 to 9000, e.g. 1400)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'h1:cpu=0'],
      'aifabric: invalid value for --fault: "h1:cpu=0" (cpu must be a number of cores from 0.01 to 1024, e.g. 0.25)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--fault', 'leaf0:uplink-rate=1M'],
      'aifabric: invalid value for --fault: "leaf0:uplink-rate=1M" (a leaf fault needs a two-tier testbed (--leaves 2 or more))',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--leaves', '2'],
      "aifabric: --leaves 2 needs --uplink-rate RATE (the rate of each leaf's uplink to the spine, e.g. 50Mbps)",
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--leaves', '5', '--uplink-rate', '1G'],
      'aifabric: invalid value for --leaves: 5 (expected 1 to --hosts 4: every leaf has at least one host)',
    ],
    [
      ['--rate', '1gbit', '--buffer', '64K', '--uplink-rate', '1G'],
      'aifabric: invalid value for --uplink-rate: a single-switch testbed has no uplinks (give --leaves 2 or more)',
    ],
    [
      [
        '--rate',
        '1gbit',
        '--buffer',
        '64K',
        '--leaves',
        '2',
        '--uplink-rate',
        '100M',
        '--fault',
        'leaf1:uplink-rate=200M',
      ],
      'aifabric: invalid value for --fault: "leaf1:uplink-rate=200M" (rate 200 Mbit/s is above --uplink-rate 100 Mbit/s: a fault can only slow an uplink)',
    ],
  ])('testbed up --hosts 4 %j', async (extra, message) => {
    const args = ['testbed', 'up', '--name', NAME, '--hosts', '4', ...extra];
    const run = await runCli(args);
    expect(firstLine(run.stderr)).toBe(message);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    if (canNetns) expect(mine(await listNamespaces())).toEqual([]);
  });
});

describe.skipIf(!canNetns)('testbed defect 15 (root)', () => {
  const databases = mkdtempSync(join(tmpdir(), 'aifabric-testbed-'));
  afterAll(async () => {
    await testbedDown(NAME).catch(() => undefined);
    rmSync(databases, { recursive: true, force: true });
    expect(mine(await listNamespaces())).toEqual([]);
  });

  it('after `up` is killed, `run` refuses the half-built testbed and `down` removes it', async () => {
    let killed = false;
    const up = await runCli(
      ['testbed', 'up', '--name', NAME, '--hosts', '40', '--rate', '1gbit', '--buffer', '64K'],
      {
        timeoutMs: 60_000,
        onSpawn: when(
          () => hasNamespace(`${NAME}-h2`),
          (child) => {
            killed = true;
            child.kill('SIGKILL');
          },
        ),
      },
    );
    expect(killed).toBe(true);
    expect(up.signal).toBe('SIGKILL');
    expect(mine(await listNamespaces()).length).toBeGreaterThanOrEqual(3);

    const run = await runCli(['testbed', 'run', '--name', NAME, '--', 'true']);
    expect(firstLine(run.stderr)).toMatch(
      new RegExp(
        `^aifabric: testbed "${NAME}" is incomplete: its \`up\` \\(pid \\d+\\) did not finish; remove it with \`aifabric testbed down --name ${NAME}\` and run up again$`,
      ),
    );
    expect(run.code).toBe(3);
    const again = await runCli([
      'testbed',
      'up',
      '--name',
      NAME,
      '--hosts',
      '2',
      '--rate',
      '1gbit',
      '--buffer',
      '64K',
    ]);
    expect(firstLine(again.stderr)).toBe(
      `aifabric: testbed "${NAME}" exists but is incomplete (an earlier \`up\` did not finish): remove it with \`aifabric testbed down --name ${NAME}\``,
    );
    expect(again.code).toBe(3);

    // The killed `up` left its lock behind: stale, so `down` takes it over.
    const down = await runCli(['testbed', 'down', '--name', NAME]);
    expect(down.stderr).toBe('');
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(/removed \d+ namespaces \(an incomplete testbed\)/);
    expect(mine(await listNamespaces())).toEqual([]);
    expect(existsSync(join(stateDir(), `${NAME}.json`))).toBe(false);
    expect(existsSync(join(stateDir(), `${NAME}.lock`))).toBe(false);
  });

  it('`down --name zz` leaves zz-h7 and zz-sw that aifabric never made', async () => {
    const name = `zz${process.pid % 100000}`;
    const foreign = [`${name}-h7`, `${name}-sw`];
    for (const ns of foreign) expect(spawnSync('ip', ['netns', 'add', ns]).status).toBe(0);
    try {
      const down = await runCli(['testbed', 'down', '--name', name]);
      expect(down.stderr).toBe('');
      expect(down.code).toBe(0);
      expect(down.stdout).toBe(
        `testbed ${name}: nothing to remove (left ${foreign.join(', ')}: not made by aifabric testbed up)\n`,
      );
      for (const ns of foreign) expect(hasNamespace(ns)).toBe(true);

      const run = await runCli(['testbed', 'run', '--name', name, '--', 'true']);
      expect(firstLine(run.stderr)).toBe(
        `aifabric: testbed "${name}" was not made by \`aifabric testbed up\` (no state in ${stateDir()}): remove it with \`aifabric testbed down --name ${name}\`, then run up`,
      );
      expect(run.code).toBe(3);
      const up = await runCli([
        'testbed',
        'up',
        '--name',
        name,
        '--hosts',
        '2',
        '--rate',
        '1gbit',
        '--buffer',
        '64K',
      ]);
      expect(firstLine(up.stderr)).toBe(
        `aifabric: testbed "${name}" already exists: remove it with \`aifabric testbed down --name ${name}\``,
      );
      expect(up.code).toBe(3);
      for (const ns of foreign) expect(hasNamespace(ns)).toBe(true);
    } finally {
      for (const ns of foreign) spawnSync('ip', ['netns', 'delete', ns]);
    }
  });

  it('two `up` with one name at once: the second (and a `down`) exit 3 naming the first', async () => {
    const lock = join(stateDir(), `${NAME}.lock`);
    let second: Awaited<ReturnType<typeof runCli>> | undefined;
    let down: Awaited<ReturnType<typeof runCli>> | undefined;
    let contended: Promise<void> | undefined;
    // The first `up` is stopped (SIGSTOP) half-way while the others try, so it cannot finish first.
    const first = await runCli(
      ['testbed', 'up', '--name', NAME, '--hosts', '12', '--rate', '1gbit', '--buffer', '64K'],
      {
        timeoutMs: 90_000,
        onSpawn: when(
          () => existsSync(lock) && hasNamespace(`${NAME}-h1`),
          (child) => {
            child.kill('SIGSTOP');
            contended = (async () => {
              try {
                second = await runCli([
                  'testbed',
                  'up',
                  '--name',
                  NAME,
                  '--hosts',
                  '2',
                  '--rate',
                  '1gbit',
                  '--buffer',
                  '64K',
                ]);
                down = await runCli(['testbed', 'down', '--name', NAME]);
              } finally {
                child.kill('SIGCONT');
              }
            })();
          },
        ),
      },
    );
    await contended;
    expect(first.code).toBe(0);
    const busy = new RegExp(
      `^aifabric: testbed "${NAME}" is busy: \`aifabric testbed up\` \\(pid \\d+\\) is at work on it \\(lock ${lock}\\)$`,
    );
    expect(firstLine(second!.stderr)).toMatch(busy);
    expect(second!.code).toBe(3);
    expect(firstLine(down!.stderr)).toMatch(busy);
    expect(down!.code).toBe(3);
    // The first was not disturbed: all 12 hosts, complete, and usable.
    expect(mine(await listNamespaces())).toHaveLength(13);
    const run = await runCli(['testbed', 'run', '--name', NAME, '--', 'true']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await runCli(['testbed', 'down', '--name', NAME])).code).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('`run --timeout` kills what outlives it and exits 3: never a hang', async () => {
    expect(
      (await runCli(['testbed', 'up', '--name', NAME, '--hosts', '2', '--rate', '1gbit', '--buffer', '64K']))
        .code,
    ).toBe(0);
    try {
      const run = await runCli(['testbed', 'run', '--name', NAME, '--timeout', '1s', '--', 'sleep', '60'], {
        timeoutMs: 30_000,
      });
      expect(firstLine(run.stderr)).toBe(
        'aifabric: testbed run: timed out after 1 s (--timeout); killed what still ran',
      );
      expect(run.code).toBe(3);
      for (const host of [0, 1])
        expect(
          spawnSync('ip', ['netns', 'pids', `${NAME}-h${host}`], { encoding: 'utf8' }).stdout.trim(),
        ).toBe('');
      const zero = await runCli(['testbed', 'run', '--name', NAME, '--timeout', '0s', '--', 'true']);
      expect(firstLine(zero.stderr)).toBe('aifabric: invalid value for --timeout: 0 s (expected above 0)');
      expect(zero.code).toBe(2);
    } finally {
      expect((await runCli(['testbed', 'down', '--name', NAME])).code).toBe(0);
    }
  });

  it('up and down take --save and --db', async () => {
    const db = join(databases, 'runs.db');
    const up = await runCli([
      'testbed',
      'up',
      '--name',
      NAME,
      '--hosts',
      '2',
      '--rate',
      '1gbit',
      '--buffer',
      '64K',
      '--fault',
      'h1:loss=0.01',
      '--save',
      '--db',
      db,
    ]);
    expect(firstLine(up.stderr)).toBe(`saved as run 1 in ${db}`);
    expect(up.code).toBe(0);
    const down = await runCli(['testbed', 'down', '--name', NAME, '--save', '--db', db]);
    expect(firstLine(down.stderr)).toBe(`saved as run 2 in ${db}`);
    expect(down.code).toBe(0);
    const list = await runCli(['runs', 'list', '--db', db, '--json']);
    expect(list.code).toBe(0);
    const runs = JSON.parse(list.stdout).metrics.runs as { kind: string }[];
    expect(runs.map((run) => run.kind).sort()).toEqual(['testbed.down', 'testbed.up']);
  });
});
