/**
 * The namespace testbed end to end (root and iproute2 needed; CI runs as root): up with 4 hosts,
 * a 4-rank all_reduce across them through `testbed run`, down, and nothing left behind; `down`
 * twice is fine; a failed `up` removes what it made; without root, exit 3 with a clear message.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseNcclTests } from '../../src/parse/index.js';
import { listNamespaces, testbedDown, testbedUp } from '../../src/testbed/index.js';
import { EnvironmentError } from '../../src/core/errors.js';
import { isAlive, which } from '../bench/helpers.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canNetns = isRoot && which('ip') && which('tc') && spawnSync('ip', ['netns', 'list']).status === 0;
if (!canNetns)
  console.log('skipping testbed tests: they need root and iproute2 (ip, tc); CI runs them as root');

const NAME = `tb${process.pid % 100000}`;

function leftovers(namespaces: string[]): string[] {
  return namespaces.filter((ns) => ns.startsWith(`${NAME}-`));
}

describe.skipIf(!canNetns)('testbed (root)', () => {
  afterAll(async () => {
    await testbedDown(NAME).catch(() => undefined);
  });

  it('up 4 hosts, 4-rank all_reduce across them, down: nothing left behind', async () => {
    const up = await runCli([
      'testbed',
      'up',
      '--name',
      NAME,
      '--hosts',
      '4',
      '--rate',
      '1gbit',
      '--buffer',
      '256K',
      '--json',
    ]);
    expect(up.code).toBe(0);
    const info = JSON.parse(up.stdout);
    expect(info.metrics.hostNamespaces).toEqual([0, 1, 2, 3].map((i) => `${NAME}-h${i}`));
    const qdiscs = spawnSync('tc', ['-n', `${NAME}-sw`, 'qdisc', 'show', 'dev', 'p2'], {
      encoding: 'utf8',
    }).stdout;
    expect(qdiscs).toMatch(/qdisc htb 1: root/);
    expect(qdiscs).toMatch(/qdisc bfifo 10: parent 1:10 limit 256Kb/);

    const run = await runCli(
      [
        'testbed',
        'run',
        '--name',
        NAME,
        '--',
        process.execPath,
        CLI_PATH,
        'bench',
        'tcp',
        '-b',
        '1K',
        '-e',
        '64K',
        '-f',
        '8',
        '-n',
        '2',
        '-w',
        '1',
        '--timeout',
        '20',
      ],
      { timeoutMs: 60_000 },
    );
    expect(run.code).toBe(0);
    const test = parseNcclTests(run.stdout).facts.tests[0]!;
    expect(test.devices.map((device) => device.host)).toEqual([0, 1, 2, 3].map((i) => `${NAME}-h${i}`));
    expect(run.stdout).toContain('10.99.0.4:');
    expect(test.rows).toHaveLength(3);
    expect(test.outOfBounds).toEqual({ count: 0, ok: true });
    const pids = test.devices.map((device) => device.pid!);

    const down = await runCli(['testbed', 'down', '--name', NAME]);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain('removed 5 namespaces');
    expect(leftovers(await listNamespaces())).toEqual([]);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    // No veth end leaks into the root namespace (they live and die inside the testbed's).
    expect(spawnSync('ip', ['-o', 'link', 'show', 'type', 'veth'], { encoding: 'utf8' }).stdout).not.toMatch(
      new RegExp(`${NAME}|\\bp[0-3]@`),
    );
    const again = await runCli(['testbed', 'down', '--name', NAME]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to remove');
  });

  it('a command failing on one host fails the run', async () => {
    await testbedUp({ name: NAME, hosts: 2, rateBps: 1e9, bufferBytes: 65536 });
    try {
      const run = await runCli(['testbed', 'run', '--name', NAME, '--', 'sh', '-c', 'exit $RANK']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('host 1 exited 1');
    } finally {
      await testbedDown(NAME);
    }
  });

  it("Ctrl-C during run stops every host's command and exits 130, as a one-host command would", async () => {
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
    ]);
    expect(up.code).toBe(0);
    try {
      let sent = false;
      let pids: number[] = [];
      const run = await runCli(
        ['testbed', 'run', '--name', NAME, '--', 'sh', '-c', 'echo "pid $$"; exec sleep 60'],
        {
          timeoutMs: 30_000,
          onStdout: (soFar, pid) => {
            const seen = [...soFar.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));
            if (sent || seen.length < 2) return;
            sent = true;
            pids = seen;
            process.kill(pid, 'SIGINT');
          },
        },
      );
      expect(sent).toBe(true);
      expect(run.code).toBe(130);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pids.filter(isAlive)).toEqual([]);
    } finally {
      await testbedDown(NAME);
    }
  });

  it('Ctrl-C during up removes what it had made and exits 3', async () => {
    let interrupted = false;
    const run = await runCli(
      ['testbed', 'up', '--name', NAME, '--hosts', '40', '--rate', '1gbit', '--buffer', '64K'],
      {
        timeoutMs: 60_000,
        onSpawn: (child) => {
          // Interrupt once some of the hosts exist.
          const poll = setInterval(() => {
            const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
            if (list.includes(`${NAME}-h2`) && !interrupted) {
              interrupted = true;
              clearInterval(poll);
              child.kill('SIGINT');
            }
          }, 20);
          child.on('exit', () => clearInterval(poll));
        },
      },
    );
    expect(interrupted).toBe(true);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('interrupted');
    expect(leftovers(await listNamespaces())).toEqual([]);
  });

  it('a failed up removes what it had made', async () => {
    await expect(
      testbedUp({ name: NAME, hosts: 4, rateBps: 1e9, bufferBytes: 65536, failAtHost: 2 }),
    ).rejects.toThrow(/injected failure at host 2/);
    expect(leftovers(await listNamespaces())).toEqual([]);
  });
});

describe('testbed without root', () => {
  it('exits 3 with a clear message', async () => {
    const spy = vi.spyOn(process, 'getuid').mockReturnValue(1000);
    try {
      const attempt = testbedUp({ name: 'nonroot', hosts: 2, rateBps: 1e9, bufferBytes: 65536 });
      await expect(attempt).rejects.toBeInstanceOf(EnvironmentError);
      await expect(attempt).rejects.toThrow(/needs root/);
    } finally {
      spy.mockRestore();
    }
  });
});
