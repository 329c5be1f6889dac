/**
 * `accept`'s launchers for real hosts (issue 11): each run is one argv on one host, started the
 * way the cluster already starts things.
 *
 * - `ssh`: `ssh -o BatchMode=yes -o ConnectTimeout=10 HOST -- 'env' 'K=V' ... 'argv'...`. ssh hands
 *   the remote side one command line, so every word is POSIX single-quoted (formatArgv): the
 *   remote shell sees exactly the argv, never text it could interpret.
 * - `srun`: `srun --nodes=1 --ntasks=1 --nodelist=HOST --overlap --export=ALL,K=V -- argv`: one
 *   task on that node, inside the allocation when there is one (`--overlap` lets the pairs of a
 *   round share the allocation's nodes at once; Slurm 20.11 and later).
 * - `mpirun`: `mpirun -np 1 --host HOST -x K=V -- argv` (Open MPI; `--allow-run-as-root` as root).
 * - `local`: the argv on this machine, for one host (this one).
 *
 * The launcher's own failures (no route, no allocation, a refused key) come back as the run's
 * exit code and stderr, which the engine's preflight reports per host.
 */
import { hostname } from 'node:os';
import { runCaptured } from '../core/index.js';
import { formatArgv } from './attribute.js';
import type { AcceptHost, AcceptLauncher } from './engine.js';

export const REMOTE_LAUNCHERS = ['ssh', 'srun', 'mpirun', 'local'] as const;
export type RemoteLauncherKind = (typeof REMOTE_LAUNCHERS)[number];

export interface LauncherArgvOptions {
  /** Open MPI refuses to start as root without it. */
  runAsRoot?: boolean;
}

/**
 * The rank and size a one-task srun or mpirun announces (rank 0 of 1). bench tcp reads them before
 * torchrun's RANK and WORLD_SIZE (src/bench/launch-env.ts), so a run the engine gives a rank of its
 * own drops them first.
 */
const ONE_TASK_IDENTITY: Record<'srun' | 'mpirun', readonly string[]> = {
  srun: ['SLURM_PROCID', 'SLURM_NTASKS', 'PMI_RANK', 'PMI_SIZE'],
  mpirun: ['OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE', 'PMI_RANK', 'PMI_SIZE'],
};

/** The argv that runs `command` with `env` on `host` through `kind`. */
export function launcherArgv(
  kind: RemoteLauncherKind,
  host: string,
  commandIn: readonly string[],
  env: Record<string, string> = {},
  options: LauncherArgvOptions = {},
): string[] {
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  const command =
    (kind === 'srun' || kind === 'mpirun') && env.RANK !== undefined
      ? ['env', ...ONE_TASK_IDENTITY[kind].flatMap((name) => ['-u', name]), ...commandIn]
      : commandIn;
  switch (kind) {
    case 'ssh':
      return [
        'ssh',
        '-o',
        'BatchMode=yes',
        '-o',
        'ConnectTimeout=10',
        host,
        '--',
        formatArgv(assignments.length > 0 ? ['env', ...assignments, ...command] : [...command]),
      ];
    case 'srun':
      return [
        'srun',
        '--nodes=1',
        '--ntasks=1',
        `--nodelist=${host}`,
        '--overlap',
        `--export=${['ALL', ...assignments].join(',')}`,
        '--',
        ...command,
      ];
    case 'mpirun':
      return [
        'mpirun',
        ...(options.runAsRoot ? ['--allow-run-as-root'] : []),
        '-np',
        '1',
        '--host',
        host,
        ...assignments.flatMap((assignment) => ['-x', assignment]),
        '--',
        ...command,
      ];
    case 'local':
      return assignments.length > 0 ? ['env', ...assignments, ...command] : [...command];
  }
}

/**
 * A value srun's `--export` cannot carry (it splits on commas) or a host name a launcher would read
 * as an option: refused before any run, as bad input.
 */
export function launcherProblem(kind: RemoteLauncherKind, hosts: readonly AcceptHost[]): string | undefined {
  const dashed = hosts.find((host) => host.name.startsWith('-'));
  if (dashed) return `host "${dashed.name}": a host name cannot start with "-"`;
  if (kind === 'local' && hosts.length > 1)
    return `--launcher local runs on this machine only: give one host, not ${hosts.length}`;
  return undefined;
}

/**
 * One job over several hosts, `ranksPerHost` ranks each, as MPI programs such as nccl-tests need
 * (their ranks find each other through the launcher): `srun --nodes=N --ntasks-per-node=G
 * --nodelist=...` or `mpirun -np N*G --host h1:G,... --map-by ppr:G:node`. ssh and local cannot.
 */
export function jobArgv(
  kind: 'srun' | 'mpirun',
  hosts: readonly string[],
  ranksPerHost: number,
  command: readonly string[],
  env: Record<string, string> = {},
  options: LauncherArgvOptions = {},
): string[] {
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  const ranks = String(hosts.length * ranksPerHost);
  if (kind === 'srun') {
    return [
      'srun',
      `--nodes=${hosts.length}`,
      `--ntasks=${ranks}`,
      `--ntasks-per-node=${ranksPerHost}`,
      `--nodelist=${hosts.join(',')}`,
      `--export=${['ALL', ...assignments].join(',')}`,
      '--',
      ...command,
    ];
  }
  return [
    'mpirun',
    ...(options.runAsRoot ? ['--allow-run-as-root'] : []),
    '-np',
    ranks,
    '--host',
    hosts.map((host) => `${host}:${ranksPerHost}`).join(','),
    '--map-by',
    `ppr:${ranksPerHost}:node`,
    ...assignments.flatMap((assignment) => ['-x', assignment]),
    '--',
    ...command,
  ];
}

export function remoteLauncher(
  kind: RemoteLauncherKind,
  hosts: AcceptHost[],
  options: LauncherArgvOptions = {},
): AcceptLauncher {
  const label = kind === 'local' ? `local (${hostname()})` : `${kind} across ${hosts.length} host(s)`;
  const argvFor = (host: number, command: readonly string[], env?: Record<string, string>): string[] => {
    const target = hosts[host];
    if (target === undefined) throw new Error(`internal: no host ${host}`);
    return launcherArgv(kind, target.name, command, env, options);
  };
  const jobFor =
    kind === 'srun' || kind === 'mpirun'
      ? (
          indexes: readonly number[],
          ranksPerHost: number,
          command: readonly string[],
          env?: Record<string, string>,
        ): string[] =>
          jobArgv(
            kind,
            indexes.map((index) => hosts[index]!.name),
            ranksPerHost,
            command,
            env,
            options,
          )
      : undefined;
  return {
    label,
    hosts,
    exec: (host, command, runOptions) =>
      runCaptured(argvFor(host, command, runOptions.env), { timeoutS: runOptions.timeoutS }),
    reproduce: (host, command) => argvFor(host, command),
    ...(jobFor
      ? {
          job: (
            indexes: readonly number[],
            ranksPerHost: number,
            command: readonly string[],
            runOptions: { timeoutS: number; env?: Record<string, string> },
          ) =>
            runCaptured(jobFor(indexes, ranksPerHost, command, runOptions.env), {
              timeoutS: runOptions.timeoutS,
            }),
          reproduceJob: (
            indexes: readonly number[],
            ranksPerHost: number,
            command: readonly string[],
            env?: Record<string, string>,
          ) => jobFor(indexes, ranksPerHost, command, env),
        }
      : {}),
  };
}
