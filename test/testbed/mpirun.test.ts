/**
 * Real Open MPI across the testbed's namespaces (root, iproute2 and openmpi-bin needed; CI has them):
 * `testbed mpirun` starts mpirun in host 0 and each remote daemon in its own host's namespace, so a
 * 4-rank `bench tcp` all_reduce runs with one rank on each of 4 emulated hosts (each rank's host is in
 * the nccl-tests header) and checks its data (-c 1). The rsh agent refuses a host the testbed lacks.
 * Every emulated host keeps its own Open MPI session folder (they share /tmp and the host name).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stateDir, testbedDown } from '../../src/testbed/index.js';
import { which } from '../bench/helpers.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const canNetns = isRoot && which('ip') && which('tc') && spawnSync('ip', ['netns', 'list']).status === 0;
const haveMpirun = which('mpirun');
if (!canNetns)
  console.log('skipping testbed mpirun tests: they need root and iproute2 (ip, tc); CI runs them as root');
else if (!haveMpirun)
  console.log('skipping testbed mpirun tests: they need mpirun (apt-get install openmpi-bin)');

const NAME = `tm${process.pid % 100000}`;

describe.skipIf(!canNetns || !haveMpirun)('testbed mpirun: Open MPI across emulated hosts (root)', () => {
  afterAll(async () => {
    await testbedDown(NAME);
  });

  it('a 4-rank bench tcp all_reduce with one rank on each of 4 emulated hosts, data checked', async () => {
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
    ]);
    expect(up.code, up.stderr).toBe(0);
    const run = await runCli(
      [
        'testbed',
        'mpirun',
        '--name',
        NAME,
        '--',
        process.execPath,
        CLI_PATH,
        'bench',
        'tcp',
        '--op',
        'all_reduce',
        '-b',
        '1M',
        '-e',
        '2M',
        '-n',
        '2',
        '-w',
        '1',
        '-c',
        '1',
      ],
      { timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('(launcher: Open MPI)');
    for (let host = 0; host < 4; host++)
      expect(run.stdout).toMatch(new RegExp(`#  Rank  ${host} Group  0 Pid +\\d+ on +${NAME}-h${host} `));
    expect(run.stdout).toContain('# Out of bounds values : 0 OK');
  });

  it('the rsh agent refuses a host the testbed does not have (exit 2, naming it)', () => {
    const agent = join(CLI_PATH, '..', '..', 'testbed', 'rsh-agent.js');
    const run = spawnSync(process.execPath, [agent, NAME, '10.99.0.77', 'true'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/host "10\.99\.0\.77" is not in testbed/);
  });

  it('each emulated host has a session folder of its own (they share one file system and host name), removed by down', async () => {
    const run = await runCli(
      [
        'testbed',
        'mpirun',
        '--name',
        NAME,
        '--',
        'sh',
        '-c',
        'echo "$AIFABRIC_TESTBED_HOST $OMPI_FILE_LOCATION"',
      ],
      { timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('PMIX ERROR');
    const folders = new Map(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    expect([...folders.keys()].sort()).toEqual([0, 1, 2, 3].map((host) => `${NAME}-h${host}`));
    const sessionOf = (path: string): string => path.replace(/\/ompi\.[^/]+\/.*$/, '');
    expect(new Set([...folders.values()].map(sessionOf)).size).toBe(4);
    for (let host = 1; host < 4; host++)
      expect(folders.get(`${NAME}-h${host}`)).toContain(join(stateDir(), `${NAME}.mpi`, `${NAME}-h${host}`));
    expect((await runCli(['testbed', 'down', '--name', NAME])).code).toBe(0);
    expect(existsSync(join(stateDir(), `${NAME}.mpi`))).toBe(false);
  });
});
