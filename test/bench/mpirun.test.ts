/**
 * A real launcher: Open MPI's mpirun starts 4 ranks of the built CLI; each reads its rank from
 * OMPI_COMM_WORLD_RANK/SIZE and they meet at MASTER_ADDR:MASTER_PORT. CI installs openmpi-bin.
 */
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/bench/index.js';
import { parseNcclTests } from '../../src/parse/index.js';
import { which } from './helpers.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';

const haveMpirun = which('mpirun');
if (!haveMpirun) console.log('skipping the mpirun test: mpirun not found (CI installs openmpi-bin)');

describe.skipIf(!haveMpirun)('mpirun', () => {
  it('mpirun --allow-run-as-root --oversubscribe -np 4 aifabric bench tcp prints one table for 4 ranks', async () => {
    const port = await freeLoopbackPort();
    const run = await runCli(
      [
        '--allow-run-as-root',
        '--oversubscribe',
        '-np',
        '4',
        '-x',
        `MASTER_PORT=${port}`,
        '-x',
        'MASTER_ADDR=127.0.0.1',
        process.execPath,
        CLI_PATH,
        'bench',
        'tcp',
        '--op',
        'reduce_scatter',
        '-b',
        '1K',
        '-e',
        '16K',
        '-f',
        '4',
        '-n',
        '2',
        '-w',
        '1',
        '-d',
        'int32',
        '-o',
        'max',
        '--timeout',
        '30',
      ],
      {
        command: ['mpirun'],
        timeoutMs: 90_000,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('(launcher: Open MPI)');
    const tests = parseNcclTests(run.stdout).facts.tests;
    expect(tests).toHaveLength(1);
    const test = tests[0]!;
    expect(test.collective).toBe('reduce_scatter');
    expect(test.devices.map((device) => device.rank)).toEqual([0, 1, 2, 3]);
    expect(test.rows.map((row) => [row.sizeBytes, row.count, row.type, row.redop])).toEqual([
      [1024, 64, 'int32', 'max'],
      [4096, 256, 'int32', 'max'],
      [16384, 1024, 'int32', 'max'],
    ]);
    expect(test.rows.every((row) => row.outOfPlace.wrong === 0 && row.inPlace.wrong === 0)).toBe(true);
    expect(test.outOfBounds).toEqual({ count: 0, ok: true });
  });
});
