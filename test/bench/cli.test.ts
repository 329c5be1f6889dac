/**
 * `aifabric bench tcp` end to end, as a user runs it: `--np` ranks, the nccl-tests table read back
 * by our parser, `--json`, `-c 1` failing on a corrupted element with exit 1, and usage errors.
 */
import { describe, expect, it } from 'vitest';
import { parseNcclTests } from '../../src/parse/index.js';
import { detectLaunch } from '../../src/bench/launch-env.js';
import { runCli } from '../helpers/run-cli.js';

const small = ['-b', '1K', '-e', '64K', '-f', '4', '-n', '2', '-w', '1', '--timeout', '30'];

describe('bench tcp --np (built CLI)', () => {
  it('runs 4 local ranks and prints a table our nccl-tests parser reads', async () => {
    const run = await runCli(['bench', 'tcp', '--np', '4', '--op', 'all_reduce', '--sockets', '2', ...small]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const test = parseNcclTests(run.stdout).facts.tests[0]!;
    expect(test.collective).toBe('all_reduce');
    expect(test.devices).toHaveLength(4);
    expect(new Set(test.devices.map((device) => device.pid)).size).toBe(4);
    expect(test.rows.map((row) => row.sizeBytes)).toEqual([1024, 4096, 16384, 65536]);
    for (const row of test.rows) {
      expect(row.count).toBe(row.sizeBytes / 4);
      expect([row.type, row.redop, row.root, row.outOfPlace.wrong, row.inPlace.wrong]).toEqual([
        'float',
        'sum',
        -1,
        0,
        0,
      ]);
      // busbw = algbw x 2(n-1)/n, within the two decimals printed.
      expect(Math.abs(row.outOfPlace.busbwGBps - row.outOfPlace.algbwGBps * 1.5)).toBeLessThanOrEqual(0.02);
    }
    expect(test.outOfBounds).toEqual({ count: 0, ok: true });
    expect(test.avgBusbwGBps).not.toBeNull();
  });

  it('8 local processes: alltoall over the full mesh, every element right', async () => {
    const run = await runCli([
      'bench',
      'tcp',
      '--np',
      '8',
      '--op',
      'alltoall',
      '-d',
      'int32',
      '-b',
      '1000',
      '-e',
      '8000',
      '-f',
      '8',
      '-n',
      '1',
      '-w',
      '0',
      '--timeout',
      '30',
    ]);
    expect(run.code).toBe(0);
    const test = parseNcclTests(run.stdout).facts.tests[0]!;
    expect(test.devices).toHaveLength(8);
    // 1000 B = 250 int32: 31 per peer, so 992 B are moved, as nccl-tests rounds down.
    expect(test.rows.map((row) => [row.sizeBytes, row.count])).toEqual([
      [992, 31],
      [8000, 250],
    ]);
    expect(test.rows.every((row) => row.outOfPlace.wrong === 0 && row.inPlace.wrong === 0)).toBe(true);
  });

  it('prints the envelope with --json, with the same rows unrounded', async () => {
    const run = await runCli([
      'bench',
      'tcp',
      '--np',
      '2',
      '--op',
      'broadcast',
      '--json',
      '-d',
      'double',
      ...small,
    ]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.kind).toBe('bench.tcp');
    expect(result.metrics.nranks).toBe(2);
    expect(result.inputs.ranks).toHaveLength(2);
    expect(result.metrics.rows).toHaveLength(4);
    const first = result.metrics.rows[0];
    expect(first).toMatchObject({ sizeBytes: 1024, count: 128, type: 'double', redop: 'none', root: 0 });
    expect(first.outOfPlace.busbwGBps).toBe(first.outOfPlace.algbwGBps);
    expect(first.outOfPlace.wrong).toBe(0);
  });

  it('-c 1 counts a corrupted element in #wrong and exits 1', async () => {
    const run = await runCli(['bench', 'tcp', '--np', '3', '--op', 'all_reduce', '-c', '1', ...small], {
      env: { AIFABRIC_BENCH_CORRUPT: '1' },
    });
    expect(run.code).toBe(1);
    const test = parseNcclTests(run.stdout).facts.tests[0]!;
    expect(test.rows.every((row) => row.outOfPlace.wrong === 1 && row.inPlace.wrong === 1)).toBe(true);
    expect(run.stdout).toContain('# Out of bounds values : 8 FAILED');
  });

  it('-c 0 prints N/A and skips the check', async () => {
    const run = await runCli(['bench', 'tcp', '--np', '2', '--op', 'sendrecv', '-c', '0', ...small], {
      env: { AIFABRIC_BENCH_CORRUPT: '1' },
    });
    expect(run.code).toBe(0);
    expect(parseNcclTests(run.stdout).facts.tests[0]!.rows[0]!.outOfPlace.wrong).toBeNull();
  });

  it('AIFABRIC_BENCH_PROGRESS=events runs the libuv path, checked; an unknown mode exits 2 before any rank starts', async () => {
    const events = await runCli(['bench', 'tcp', '--np', '3', '--op', 'all_reduce', '-c', '1', ...small], {
      env: { AIFABRIC_BENCH_PROGRESS: 'events' },
    });
    expect(events.code).toBe(0);
    expect(
      parseNcclTests(events.stdout).facts.tests[0]!.rows.every(
        (row) => row.outOfPlace.wrong === 0 && row.inPlace.wrong === 0,
      ),
    ).toBe(true);
    const bad = await runCli(['bench', 'tcp', '--np', '2', ...small], {
      env: { AIFABRIC_BENCH_PROGRESS: 'spin' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'aifabric: AIFABRIC_BENCH_PROGRESS=spin: expected one of poll, events',
    );
  });

  it('--algo halving-doubling runs checked on 4 ranks and, folded, on 3; the header says which schedule ran', async () => {
    for (const np of ['4', '3']) {
      const run = await runCli([
        'bench',
        'tcp',
        '--np',
        np,
        '--op',
        'all_reduce',
        '--algo',
        'halving-doubling',
        '-c',
        '1',
        ...small,
        '--json',
      ]);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as {
        inputs: { algo: string };
        metrics: { outOfBounds: number; rows: unknown[] };
      };
      expect(result.inputs.algo).toBe('halving-doubling');
      expect(result.metrics.outOfBounds).toBe(0);
      expect(result.metrics.rows.length).toBe(4);
    }
    const ring = await runCli([
      'bench',
      'tcp',
      '--np',
      '3',
      '--op',
      'all_reduce',
      '--algo',
      'ring',
      ...small,
    ]);
    expect(ring.code).toBe(0);
    expect(ring.stdout.split('\n')[0]).toMatch(/, all_reduce by ring$/);
  });

  it('--settle runs untimed iterations before each cell, says so in the header, and 0 turns it off', async () => {
    const settled = await runCli([
      'bench',
      'tcp',
      '--np',
      '2',
      '--op',
      'all_reduce',
      '-b',
      '16K',
      '-e',
      '64K',
      '-f',
      '4',
      '-n',
      '2',
      '-w',
      '0',
      '--settle',
      '200ms',
      '--json',
      '--timeout',
      '30',
    ]);
    expect(settled.code).toBe(0);
    const result = JSON.parse(settled.stdout);
    expect(result.inputs.settleMs).toBe(200);
    for (const row of result.metrics.rows) {
      // Every cell ran at least one untimed batch, never more than the cap.
      for (const cell of [row.outOfPlace, row.inPlace]) expect(cell.settleIterations).toBeGreaterThan(0);
      for (const cell of [row.outOfPlace, row.inPlace])
        expect(cell.settleIterations).toBeLessThanOrEqual(1000);
    }
    const text = await runCli([
      'bench',
      'tcp',
      '--np',
      '2',
      '--op',
      'all_reduce',
      '-b',
      '16K',
      '-e',
      '16K',
      '-n',
      '2',
      '-w',
      '0',
      '--timeout',
      '30',
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toContain(
      'settle 1 s before the first size and 0.25 s before the others (at most 1000 untimed iterations each)',
    );
    const off = await runCli([
      'bench',
      'tcp',
      '--np',
      '2',
      '--op',
      'all_reduce',
      '-b',
      '16K',
      '-e',
      '16K',
      '-n',
      '2',
      '-w',
      '0',
      '--settle',
      '0',
      '--json',
      '--timeout',
      '30',
    ]);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout).metrics.rows[0].outOfPlace.settleIterations).toBe(0);
    const bad = await runCli(['bench', 'tcp', '--np', '2', '--settle', '5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toContain('--settle');
  });

  it('rejects a bad flag value with exit 2', async () => {
    const run = await runCli(['bench', 'tcp', '--np', '2', '--op', 'allreduce']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--op');
  });
});

describe('rank and size from launchers', () => {
  it('reads Open MPI, PMI, Slurm and torchrun variables in that order', () => {
    expect(
      detectLaunch({ OMPI_COMM_WORLD_RANK: '3', OMPI_COMM_WORLD_SIZE: '4', RANK: '0', WORLD_SIZE: '1' }),
    ).toMatchObject({ rank: 3, size: 4, source: 'Open MPI' });
    expect(detectLaunch({ PMI_RANK: '1', PMI_SIZE: '2' })).toMatchObject({ rank: 1, size: 2, source: 'PMI' });
    expect(detectLaunch({ SLURM_PROCID: '5', SLURM_NTASKS: '8' })).toMatchObject({
      rank: 5,
      size: 8,
      source: 'Slurm',
    });
    expect(
      detectLaunch({ RANK: '2', WORLD_SIZE: '3', MASTER_ADDR: '10.1.1.1', MASTER_PORT: '1234' }),
    ).toMatchObject({
      rank: 2,
      size: 3,
      source: 'torchrun',
      masterAddr: '10.1.1.1',
      masterPort: 1234,
    });
    expect(detectLaunch({})).toMatchObject({ rank: 0, size: 1, masterAddr: '127.0.0.1', masterPort: 29500 });
    expect(detectLaunch({ RANK: '0', WORLD_SIZE: '2' }, 'head-0:7000')).toMatchObject({
      masterAddr: 'head-0',
      masterPort: 7000,
    });
  });

  it('rejects a rank outside the job', () => {
    expect(() => detectLaunch({ RANK: '2', WORLD_SIZE: '2' })).toThrow(/RANK=2 is not below WORLD_SIZE=2/);
  });
});
