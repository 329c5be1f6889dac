/**
 * A private one-node Slurm for tests (root, slurm-wlm and munge from Debian; CI installs them): its
 * own munge key and socket, slurmctld and slurmd in the foreground on free loopback ports, every
 * file in one temporary folder, so nothing of the machine's own configuration is read or changed.
 * `stop()` kills the three daemons and removes the folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '../../src/bench/index.js';
import { which } from '../bench/helpers.js';

export interface PrivateSlurm {
  /** Environment for srun, sinfo and the jobs: SLURM_CONF pointing at this cluster. */
  env: NodeJS.ProcessEnv;
  stop: () => void;
}

/** Why a private Slurm cannot start here, or undefined when it can. */
export function slurmUnavailable(): string | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'not root';
  for (const program of ['srun', 'sinfo', 'slurmctld', 'slurmd', 'munged'])
    if (!which(program)) return `${program} not found (apt-get install slurm-wlm munge)`;
  return undefined;
}

export async function startSlurm(): Promise<PrivateSlurm> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aifabric-slurm-'));
  for (const sub of ['state', 'spool', 'munge']) mkdirSync(path.join(dir, sub), { mode: 0o700 });
  const children: ChildProcess[] = [];
  const stop = (): void => {
    for (const child of children.reverse()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const key = path.join(dir, 'munge', 'munge.key');
    writeFileSync(key, Buffer.from(Array.from({ length: 1024 }, () => Math.floor(Math.random() * 256))), {
      mode: 0o600,
    });
    const socket = path.join(dir, 'munge', 'munge.sock');
    children.push(
      spawn(
        'munged',
        [
          '--foreground',
          '--force',
          `--key-file=${key}`,
          `--socket=${socket}`,
          `--pid-file=${path.join(dir, 'munge', 'munged.pid')}`,
          `--log-file=${path.join(dir, 'munge', 'munged.log')}`,
          `--seed-file=${path.join(dir, 'munge', 'seed')}`,
        ],
        { stdio: 'ignore' },
      ),
    );
    const host = os.hostname().split('.')[0]!;
    const [ctldPort, dPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const conf = path.join(dir, 'slurm.conf');
    writeFileSync(
      conf,
      [
        'ClusterName=aifabric-test',
        `SlurmctldHost=${host}(127.0.0.1)`,
        'SlurmUser=root',
        'SlurmdUser=root',
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${socket}`,
        `StateSaveLocation=${path.join(dir, 'state')}`,
        `SlurmdSpoolDir=${path.join(dir, 'spool')}`,
        `SlurmctldPidFile=${path.join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${path.join(dir, 'slurmd.pid')}`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${dPort}`,
        `SlurmctldLogFile=${path.join(dir, 'slurmctld.log')}`,
        `SlurmdLogFile=${path.join(dir, 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'ReturnToService=2',
        'MpiDefault=none',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        `NodeName=${host} NodeAddr=127.0.0.1 CPUs=${os.cpus().length} State=UNKNOWN`,
        'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES',
        '',
      ].join('\n'),
    );
    const env = { ...process.env, SLURM_CONF: conf };
    await waitFor(
      () => spawnSync('sh', ['-c', 'test -S "$1"', 'sh', socket]).status === 0,
      10_000,
      'munged did not create its socket',
    );
    children.push(spawn('slurmctld', ['-D', '-f', conf], { stdio: 'ignore', env }));
    children.push(spawn('slurmd', ['-D', '-f', conf, '-N', host], { stdio: 'ignore', env }));
    await waitFor(
      () =>
        spawnSync('sinfo', ['-h', '-o', '%t'], { encoding: 'utf8', env, timeout: 5000 }).stdout?.trim() ===
        'idle',
      30_000,
      'the Slurm node did not become idle',
    );
    return { env, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

async function waitFor(ready: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > until) throw new Error(`private Slurm: ${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
