/**
 * `aifabric testbed incast` through the built CLI: a small incast on real kernel TCP beside the
 * simulator (root and iproute2 needed; CI runs as root), an existing NAME refused with exit 3 and
 * left as it was, Ctrl-C mid-run removing the testbed and its processes, and bad input refused with
 * one line and exit 2 (no root needed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listNamespaces, stateDir, testbedDown, testbedUp } from '../../src/testbed/index.js';
import { isAlive, which } from '../bench/helpers.js';
import { runCli } from '../helpers/run-cli.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canNetns =
  isRoot && which('ip') && which('tc') && which('sysctl') && spawnSync('ip', ['netns', 'list']).status === 0;
if (!canNetns)
  console.log('skipping testbed incast tests: they need root and iproute2 (ip, tc); CI runs them as root');

const NAME = `inc${process.pid % 100000}`;
/** 100 Mb/s, 64 KiB per port and 64 KiB blocks: a few rounds take well under a second each. */
const SMALL = ['--rate', '100Mbps', '--buffer', '64K', '--block', '64K'];

const leftovers = async (): Promise<string[]> =>
  (await listNamespaces()).filter((ns) => ns.startsWith(`${NAME}-`));

describe('testbed incast: bad input (exit 2, one line)', () => {
  it.each([
    [['--senders', '', '--rounds', '2', ...SMALL], '--senders'],
    [['--senders', '1,two', '--rounds', '2', ...SMALL], '--senders'],
    [['--senders', '2', '--rounds', '2', '--cc', 'vegas', ...SMALL], '--cc'],
    [['--senders', '2', '--rounds', '2', '--rate', 'fast', '--buffer', '64K', '--block', '64K'], '--rate'],
    [['--senders', '2', '--rounds', '0', ...SMALL], '--rounds'],
  ])('%j names %s', async (args, flag) => {
    const run = await runCli(['testbed', 'incast', '--name', NAME, ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(flag);
  });

  const allowed = existsSync('/proc/sys/net/ipv4/tcp_allowed_congestion_control')
    ? readFileSync('/proc/sys/net/ipv4/tcp_allowed_congestion_control', 'utf8').trim().split(/\s+/)
    : [];
  it.skipIf(allowed.length === 0 || allowed.includes('cubic'))(
    '--cc cubic where the machine does not allow it: exit 3 naming the allowed list',
    async () => {
      const run = await runCli([
        'testbed',
        'incast',
        '--name',
        NAME,
        '--senders',
        '2',
        '--rounds',
        '2',
        '--cc',
        'cubic',
        ...SMALL,
      ]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`"${allowed.join(' ')}"`);
      expect(run.stderr).toContain('tcp_allowed_congestion_control');
    },
  );
});

describe.skipIf(!canNetns)('testbed incast (root)', () => {
  afterAll(async () => {
    await testbedDown(NAME).catch(() => undefined);
  });

  it('2 senders under reno beside the simulator: rows, ratio, load, the port-rate check; nothing left behind', async () => {
    const run = await runCli(
      [
        'testbed',
        'incast',
        '--name',
        NAME,
        '--senders',
        '2',
        '--rounds',
        '4',
        '--runs',
        '1',
        '--cc',
        'reno',
        '--compare-sim',
        '--json',
        ...SMALL,
      ],
      { timeoutMs: 120_000 },
    );
    expect(run.stderr).not.toMatch(/aifabric: /);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.kind).toBe('testbed.incast');
    expect(result.inputs.congestionControl).toBe('reno');
    expect(result.metrics.rows.map((row: { senders: number }) => row.senders)).toEqual([2]);
    const row = result.metrics.rows[0];
    // Goodput is payload over the 100 Mb/s port: above nothing, below the rate.
    expect(row.testbedGoodputGbps).toBeGreaterThan(0);
    expect(row.testbedGoodputGbps).toBeLessThan(0.1);
    expect(row.simGoodputGbps).toBeGreaterThan(0);
    expect(row.simGoodputGbps).toBeLessThan(0.1);
    expect(row.ratio).toBeCloseTo(row.simGoodputGbps / row.testbedGoodputGbps, 12);
    expect(row.runs).toHaveLength(1);
    expect(Number.isInteger(row.drops)).toBe(true);
    // The senders' own counters (nstat in their namespaces): a retransmission for every RTO at least.
    const counters = row.runs[0].senders;
    expect(counters.retransmittedSegments).toBeGreaterThanOrEqual(counters.timeouts);
    expect(row.timeouts).toBe(counters.timeouts);
    expect(Number.isInteger(row.simTimeouts)).toBe(true);
    // How far apart the two servers began their blocks (the worker's CLOCK_MONOTONIC stamps), given to the simulator.
    expect(row.startGapUs).toBe(row.runs[0].startGapUs);
    expect(row.startGapUs).toBeGreaterThanOrEqual(0);
    expect(row.startGapUs).toBeLessThan(1e6);
    // Each round's starts, from its earliest: 4 rounds of 2 servers, replayed by the simulator.
    const offsets = row.runs[0].startOffsetsUs as number[][];
    expect(offsets).toHaveLength(4);
    for (const round of offsets) {
      expect(round).toHaveLength(2);
      expect(round[0]).toBe(0);
      expect(round[1]).toBeGreaterThanOrEqual(0);
    }
    // One sender is always measured, for the port-rate check, even when not asked for as a row.
    expect(result.metrics.singleSender.fractionOfRate).toBeCloseTo(
      result.metrics.singleSender.goodputGbps / 0.1,
      12,
    );
    expect(result.metrics.loadAverageBefore).toHaveLength(3);
    expect(result.metrics.loadAverageAfter).toHaveLength(3);
    expect(result.metrics.sim).toMatchObject({
      cc: 'reno',
      mssBytes: 1448,
      tsoSegments: 4,
      ackEvery: 2,
      uplinkRateBps: 10e9,
      slowStartAfterIdle: true,
      seeds: [1, 2, 3],
    });
    // 4 rounds are far too few for the ratios to settle: said once, as a finding.
    expect(
      result.findings.filter((f: { ruleId: string }) => f.ruleId === 'sim.incast-few-rounds'),
    ).toHaveLength(1);
    expect(result.series[0].points.map((p: { source: string }) => p.source)).toEqual([
      'measured',
      'simulated',
    ]);
    expect(await leftovers()).toEqual([]);
    expect(existsSync(join(stateDir(), `${NAME}.json`))).toBe(false);
  }, 150_000);

  it('an existing NAME: exit 3, and that testbed is left as it was', async () => {
    await testbedUp({ name: NAME, hosts: 2, rateBps: 1e8, bufferBytes: 65536 });
    try {
      const run = await runCli([
        'testbed',
        'incast',
        '--name',
        NAME,
        '--senders',
        '1',
        '--rounds',
        '2',
        ...SMALL,
      ]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`testbed "${NAME}" already exists`);
      expect((await leftovers()).sort()).toEqual([`${NAME}-h0`, `${NAME}-h1`, `${NAME}-sw`]);
    } finally {
      await testbedDown(NAME);
    }
  });

  it('Ctrl-C mid-run: exit 130, the testbed and its processes gone', async () => {
    let pids: number[] = [];
    const run = await runCli(
      ['testbed', 'incast', '--name', NAME, '--senders', '2', '--rounds', '100000', '--runs', '1', ...SMALL],
      {
        timeoutMs: 60_000,
        onSpawn: (child) => {
          // Interrupt once the client is running in h0.
          const poll = setInterval(() => {
            const listed = spawnSync('ip', ['netns', 'pids', `${NAME}-h0`], { encoding: 'utf8' })
              .stdout.split(/\s+/)
              .filter(Boolean)
              .map(Number);
            if (listed.length > 0 && pids.length === 0) {
              pids = listed;
              clearInterval(poll);
              child.kill('SIGINT');
            }
          }, 50);
          child.on('exit', () => clearInterval(poll));
        },
      },
    );
    expect(pids.length).toBeGreaterThan(0);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted');
    expect(await leftovers()).toEqual([]);
    expect(pids.filter(isAlive)).toEqual([]);
  }, 90_000);
});
