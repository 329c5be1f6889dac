/**
 * accept on real hosts (issue 11): the argv each launcher builds, exactly, and real runs through
 * this machine (`--launcher local`), Open MPI's mpirun and a private one-node Slurm's srun, each
 * with the preflight and node stages of bench tcp; bad input exits 2, no reachable host exits 3.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launcherArgv } from '../../src/accept/index.js';
import type { AcceptMetrics } from '../../src/accept/index.js';
import { which } from '../bench/helpers.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';
import { slurmUnavailable, startSlurm, type PrivateSlurm } from '../helpers/slurm.js';

describe('launcher argv', () => {
  const command = ['aifabric', 'bench', 'tcp', '--op', 'all_reduce'];
  const env = { RANK: '1', WORLD_SIZE: '2', MASTER_ADDR: 'node01' };

  it('ssh quotes every word for the remote shell, so none of it is interpreted', () => {
    expect(launcherArgv('ssh', 'node02', ['iperf3', '-s'])).toEqual([
      'ssh',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=10',
      'node02',
      '--',
      'iperf3 -s',
    ]);
    expect(launcherArgv('ssh', 'node02', ['echo', "$(reboot); 'x'"], env)).toEqual([
      'ssh',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=10',
      'node02',
      '--',
      `env RANK=1 WORLD_SIZE=2 MASTER_ADDR=node01 echo '$(reboot); '\\''x'\\'''`,
    ]);
  });

  it('srun runs one task on the node inside the allocation, exporting the rank and dropping its own', () => {
    expect(launcherArgv('srun', 'node02', command, env)).toEqual([
      'srun',
      '--nodes=1',
      '--ntasks=1',
      '--nodelist=node02',
      '--overlap',
      '--export=ALL,RANK=1,WORLD_SIZE=2,MASTER_ADDR=node01',
      '--',
      'env',
      '-u',
      'SLURM_PROCID',
      '-u',
      'SLURM_NTASKS',
      '-u',
      'PMI_RANK',
      '-u',
      'PMI_SIZE',
      ...command,
    ]);
    expect(launcherArgv('srun', 'node02', ['iperf3', '-s'])).toEqual([
      'srun',
      '--nodes=1',
      '--ntasks=1',
      '--nodelist=node02',
      '--overlap',
      '--export=ALL',
      '--',
      'iperf3',
      '-s',
    ]);
  });

  it('mpirun starts one process on the host with -x for each variable (as root when it must)', () => {
    expect(launcherArgv('mpirun', 'node02', command, env, { runAsRoot: true })).toEqual([
      'mpirun',
      '--allow-run-as-root',
      '-np',
      '1',
      '--host',
      'node02',
      '-x',
      'RANK=1',
      '-x',
      'WORLD_SIZE=2',
      '-x',
      'MASTER_ADDR=node01',
      '--',
      'env',
      '-u',
      'OMPI_COMM_WORLD_RANK',
      '-u',
      'OMPI_COMM_WORLD_SIZE',
      '-u',
      'PMI_RANK',
      '-u',
      'PMI_SIZE',
      ...command,
    ]);
    expect(launcherArgv('local', 'here', ['iperf3', '-s'])).toEqual(['iperf3', '-s']);
  });
});

type Envelope = { metrics: AcceptMetrics & { budgetSpent?: boolean } };
const host = os.hostname().split('.')[0]!;
// The hosts here have no `aifabric` on their PATH: tell the launchers how this one starts.
const stagesArgs = [
  '--port-rate',
  '1gbit',
  '--stages',
  'preflight,node',
  '--tools',
  'bench-tcp',
  '--aifabric-command',
  `${process.execPath} ${CLI_PATH}`,
  '--json',
];

/** The node stage ran bench tcp on the host through the launcher, checked, and nothing was blamed. */
function expectHealthyNode(
  run: { code: number | null; stdout: string; stderr: string },
  argv0: string,
): void {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout) as Envelope;
  expect(result.metrics.culprits).toEqual([]);
  const node = result.metrics.runs.filter((r) => r.stage === 'node');
  expect(node.length).toBeGreaterThanOrEqual(1);
  for (const r of node) {
    expect(r.verdict).toBe('pass');
    expect(r.argv[0]).toBe(argv0);
    expect(r.measured).toBeGreaterThan(0);
  }
}

describe('accept on real hosts', () => {
  it('--launcher local: this machine, preflight and node stage, no culprit', async () => {
    const run = await runCli(['accept', '--launcher', 'local', '--hosts', host, ...stagesArgs], {
      timeoutMs: 90_000,
    });
    expectHealthyNode(run, process.execPath);
  }, 100_000);

  it('--cluster gives the port rate (the fabric preset of the cluster file)', async () => {
    const run = await runCli([
      'accept',
      '--launcher',
      'local',
      '--hosts',
      host,
      '--cluster',
      'examples/clusters/h100-roce-16nodes.yaml',
      '--stages',
      'preflight',
      '--tools',
      'iperf3',
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { inputs: { portRateBps: number } }).inputs.portRateBps).toBe(400e9);
  }, 30_000);

  it.skipIf(!which('mpirun'))(
    "--launcher mpirun: each run is mpirun -np 1 --host HOST; the full stage's ranks take the rank accept gives them, not mpirun's",
    async () => {
      const run = await runCli(['accept', '--launcher', 'mpirun', '--hosts', 'localhost', ...stagesArgs], {
        timeoutMs: 90_000,
      });
      expectHealthyNode(run, 'mpirun');
      // Two names for this machine: two hosts to accept, one bench tcp all_reduce over both.
      const args = stagesArgs.map((arg) => (arg === 'preflight,node' ? 'preflight,full' : arg));
      const full = await runCli(
        ['accept', '--launcher', 'mpirun', '--hosts', 'localhost,127.0.0.1', ...args],
        { timeoutMs: 90_000 },
      );
      expect(full.stderr).toBe('');
      const fullRun = (JSON.parse(full.stdout) as Envelope).metrics.runs.find((r) => r.stage === 'full')!;
      expect(fullRun.hosts).toEqual(['localhost', '127.0.0.1']);
      // Checked and complete; on a machine busy with other work it may come out slow, a warning (exit 0).
      expect(['pass', 'slow'], JSON.stringify(fullRun)).toContain(fullRun.verdict);
      expect(full.code).toBe(0);
      // A one-rank job (each mpirun's own rank 0 of 1) would report a busbw of 0.
      expect(fullRun.measured).toBeGreaterThan(0);
    },
    150_000,
  );

  it('Ctrl-C stops every run it launched and exits 130', async () => {
    const mark = `accept-int-${process.pid}-${Date.now()}`;
    /** Processes whose environment carries this test's mark: accept's runs inherit it. */
    const marked = (): number[] =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .flatMap((pid) => {
          try {
            return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`AIFABRIC_TEST_MARK=${mark}`)
              ? [Number(pid)]
              : [];
          } catch {
            return [];
          }
        });
    let launched = false;
    const run = runCli(
      ['accept', '--launcher', 'local', '--hosts', host, ...stagesArgs.filter((arg) => arg !== '--json')],
      {
        env: { AIFABRIC_TEST_MARK: mark },
        timeoutMs: 60_000,
        onSpawn: (child) => {
          // Once the node stage's bench tcp ranks are up (more marked processes than accept itself), interrupt.
          const timer = setInterval(() => {
            if (marked().length >= 3) {
              launched = true;
              clearInterval(timer);
              child.kill('SIGINT');
            }
          }, 100);
          child.on('close', () => clearInterval(timer));
        },
      },
    );
    const result = await run;
    expect(launched).toBe(true);
    expect(result.code).toBe(130);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(marked()).toEqual([]);
  }, 70_000);

  it('bad input exits 2 with one line; no host answering exits 3', async () => {
    const cases: [string[], string][] = [
      [['--testbed', 'x', '--hosts', 'a'], 'aifabric: give the hosts one way: --testbed or --hosts'],
      [
        ['--hosts', 'a,b'],
        'aifabric: accept on real hosts needs the rate to judge against: --port-rate RATE (100gbit), --fabric PRESET or --cluster FILE',
      ],
      [
        ['--hosts', 'a,b', '--fabric', 'roce-400g', '--cluster', 'examples/clusters/h100-roce-16nodes.yaml'],
        'aifabric: give the port rate one way: --fabric or --cluster',
      ],
      [['--hosts', 'a,b', '--cluster', 'no-such-cluster.yaml'], 'no-such-cluster.yaml'],
      [
        ['--hosts', 'a,b', '--launcher', 'local', '--port-rate', '1gbit'],
        'aifabric: --launcher local runs on this machine only: give one host, not 2',
      ],
      [['--hosts', 'node[01-02]', '--port-rate', 'fast'], 'aifabric: invalid rate for --port-rate: "fast"'],
    ];
    for (const [args, first] of cases) {
      const run = await runCli(['accept', ...args], { env: { SLURM_JOB_NODELIST: '', SLURM_JOB_ID: '' } });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.split('\n')[0]).toContain(first);
    }
    // Nothing listens for ssh on these loopback addresses: every host fails preflight.
    const none = await runCli(
      ['accept', '--launcher', 'ssh', '--hosts', '127.0.0.1,127.0.0.2', '--port-rate', '1gbit'],
      { timeoutMs: 60_000 },
    );
    expect(none.code).toBe(3);
    expect(none.stderr.split('\n')[0]).toBe(
      'aifabric: accept: none of the 2 hosts of ssh across 2 host(s) answered (127.0.0.1, 127.0.0.2)',
    );
  }, 90_000);
});

const unavailable = slurmUnavailable();
describe.skipIf(unavailable !== undefined)('accept through srun', () => {
  let slurm: PrivateSlurm;
  beforeAll(async () => {
    slurm = await startSlurm();
  }, 60_000);
  afterAll(() => slurm?.stop());

  it('inside an allocation (salloc) auto picks srun and takes the hosts from SLURM_JOB_NODELIST: each run is srun --nodelist=HOST', async () => {
    const run = await runCli(['accept', ...stagesArgs], {
      command: ['salloc', '--nodes=1', '--quiet', '--', process.execPath, CLI_PATH],
      env: slurm.env,
      timeoutMs: 120_000,
    });
    expectHealthyNode(run, 'srun');
  }, 130_000);
});
