/**
 * A real Slurm launch (issue 11): a private one-node Slurm (test/helpers/slurm.ts) runs
 * `srun -n 4 --overcommit aifabric bench tcp`; each rank takes its rank and size from SLURM_PROCID and
 * SLURM_NTASKS (with `--mpi=pmi2`, from PMI_RANK and PMI_SIZE), they meet at the rendezvous, and rank 0
 * prints one checked table listing the four ranks. CI installs slurm-wlm and munge and runs as root.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/bench/index.js';
import { parseNcclTests } from '../../src/parse/index.js';
import { slurmUnavailable, startSlurm, type PrivateSlurm } from '../helpers/slurm.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';

const unavailable = slurmUnavailable();
if (unavailable) console.log(`skipping the Slurm tests: ${unavailable} (CI has Slurm and runs as root)`);

describe.skipIf(unavailable !== undefined)('srun', () => {
  let slurm: PrivateSlurm;
  beforeAll(async () => {
    slurm = await startSlurm();
  }, 60_000);
  afterAll(() => slurm?.stop());

  const launch = async (mpi: string[]) => {
    const port = await freeLoopbackPort();
    return runCli(
      [
        ...mpi,
        '-n',
        '4',
        '--overcommit',
        process.execPath,
        CLI_PATH,
        'bench',
        'tcp',
        '--op',
        'all_reduce',
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
        '-c',
        '1',
        '--rendezvous',
        `127.0.0.1:${port}`,
        '--timeout',
        '30',
      ],
      {
        command: ['srun'],
        env: slurm.env,
        timeoutMs: 90_000,
      },
    );
  };

  it.each([
    { mpi: [], label: 'srun', launcher: 'Slurm' },
    { mpi: ['--mpi=pmi2'], label: 'srun --mpi=pmi2', launcher: 'PMI' },
  ])(
    '$label -n 4 --overcommit: four ranks from the $launcher variables, one checked table',
    async ({ mpi, launcher }) => {
      const run = await launch(mpi);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`(launcher: ${launcher})`);
      const test = parseNcclTests(run.stdout).facts.tests[0]!;
      expect(test.devices.map((device) => device.rank)).toEqual([0, 1, 2, 3]);
      expect(new Set(test.devices.map((device) => device.pid)).size).toBe(4);
      expect(test.rows.map((row) => row.sizeBytes)).toEqual([1024, 8192, 65536]);
      expect(test.rows.every((row) => row.outOfPlace.wrong === 0 && row.inPlace.wrong === 0)).toBe(true);
    },
    100_000,
  );
});
