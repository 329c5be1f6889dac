/**
 * Stress suite of bench tcp (issue 9, part 2): real `bench tcp --np N` launches through the built
 * CLI, every result element checked (`-c 1`), while two busy loops started here keep both cores
 * busy, and every other launch inside a network namespace whose TCP socket buffers are 16 KiB
 * (`net.ipv4.tcp_rmem`/`tcp_wmem` = 4096 16384 16384 in that namespace only). Zero wrong elements
 * and every launch ends on its own, always. CI draws >= 500 rows with a fixed seed;
 * `npm run stress` (AIFABRIC_STRESS=full) runs the whole matrix.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { which } from '../bench/helpers.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';
import { fullMatrix, launchArgs, rowsOf, sampleMatrix, type StressLaunch } from './matrix.js';

const SEED = 9;
const CI_ROWS = 500;
const full = process.env.AIFABRIC_STRESS === 'full';
const launches: StressLaunch[] = full ? fullMatrix(SEED) : sampleMatrix(SEED, CI_ROWS);
const namespace = `aifabric-stress-${process.pid}`;
const canNamespace = process.getuid?.() === 0 && which('ip');
const busyLoops: ChildProcess[] = [];
let namespaceUp = false;
let rowsChecked = 0;
let rowsNotDividing = 0;
let rowsInSmallBuffers = 0;

function ip(args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr.trim()}`);
}

beforeAll(() => {
  for (let i = 0; i < 2; i++) {
    const loop = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    busyLoops.push(loop);
  }
  if (!canNamespace) {
    console.warn('stress: not root or no iproute2: small-buffer launches run on the host loopback instead');
    return;
  }
  ip(['netns', 'add', namespace]);
  namespaceUp = true;
  ip(['-n', namespace, 'link', 'set', 'lo', 'up']);
  for (const name of ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'])
    ip(['netns', 'exec', namespace, 'sysctl', '-q', '-w', `${name}=4096 16384 16384`]);
  const shown = spawnSync('ip', ['netns', 'exec', namespace, 'sysctl', '-n', 'net.ipv4.tcp_rmem'], {
    encoding: 'utf8',
  }).stdout.trim();
  expect(shown.split(/\s+/)).toEqual(['4096', '16384', '16384']);
});

afterAll(() => {
  for (const loop of busyLoops) loop.kill('SIGKILL');
  if (namespaceUp) ip(['netns', 'delete', namespace]);
  if (rowsChecked === 0) return;
  console.log(
    `stress: ${rowsChecked} rows checked over ${launches.length} launches (${rowsNotDividing} with counts not dividing by the rank count, ${rowsInSmallBuffers} with 16 KiB socket buffers), 0 wrong`,
  );
});

describe('bench tcp under load: every element of every row right', () => {
  it('the sample is large enough and hits counts that do not divide', () => {
    const rows = launches.flatMap(rowsOf);
    expect(rows.length).toBeGreaterThanOrEqual(full ? CI_ROWS : CI_ROWS);
    expect(rows.some((row) => row.count === 1)).toBe(true);
    expect(rows.filter((row) => !row.dividesRanks).length).toBeGreaterThan(rows.length / 3);
    expect(rows.some((row) => row.sizeBytes > 4 * 1024 * 1024)).toBe(true);
  });

  it.each(
    launches.map((launch) => ({
      ...launch,
      name: `${launch.op} ${launch.dataType} ${launch.redOp} np=${launch.nranks} -b ${launch.minBytes} -f ${launch.stepFactor}${launch.smallBuffers ? ' 16K-buffers' : ''}`,
    })),
  )(
    '$name',
    async (launch) => {
      const inNamespace = launch.smallBuffers && namespaceUp;
      const command = inNamespace
        ? ['ip', 'netns', 'exec', namespace, process.execPath, CLI_PATH]
        : undefined;
      const run = await runCli(launchArgs(launch), { timeoutMs: 180_000, ...(command ? { command } : {}) });
      expect(run.signal, `launch was killed (hang?): ${run.stderr}`).toBeNull();
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as {
        metrics: {
          rows: {
            sizeBytes: number;
            count: number;
            outOfPlace: { wrong: number };
            inPlace: { wrong: number };
          }[];
          outOfBounds: number;
        };
      };
      const expected = rowsOf(launch);
      expect(result.metrics.rows.map((row) => row.count)).toEqual(expected.map((row) => row.count));
      for (const row of result.metrics.rows) {
        expect({ size: row.sizeBytes, wrong: row.outOfPlace.wrong }).toEqual({
          size: row.sizeBytes,
          wrong: 0,
        });
        expect({ size: row.sizeBytes, wrong: row.inPlace.wrong }).toEqual({ size: row.sizeBytes, wrong: 0 });
      }
      expect(result.metrics.outOfBounds).toBe(0);
      rowsChecked += expected.length;
      rowsNotDividing += expected.filter((row) => !row.dividesRanks).length;
      if (inNamespace) rowsInSmallBuffers += expected.length;
    },
    200_000,
  );
});
