/**
 * Who am I in this job? Launchers announce rank and size in their own variables; we read the
 * first complete pair in the order Open MPI, PMI (MPICH, Intel MPI, srun --mpi=pmi2), Slurm,
 * torchrun, and meet peers at MASTER_ADDR:MASTER_PORT (torchrun's names) unless told otherwise.
 */
import { UsageError } from '../core/errors.js';

export interface LaunchIdentity {
  rank: number;
  size: number;
  /** Which variables gave rank and size, for the header and error messages. */
  source: string;
  masterAddr: string;
  masterPort: number;
}

/** The launch-environment table: who sets which pair, in the order they are tried. */
export const RANK_SOURCES: readonly { source: string; rank: string; size: string }[] = [
  { source: 'Open MPI', rank: 'OMPI_COMM_WORLD_RANK', size: 'OMPI_COMM_WORLD_SIZE' },
  { source: 'PMI', rank: 'PMI_RANK', size: 'PMI_SIZE' },
  { source: 'Slurm', rank: 'SLURM_PROCID', size: 'SLURM_NTASKS' },
  { source: 'torchrun', rank: 'RANK', size: 'WORLD_SIZE' },
];

/** Set in every rank `--np` starts, so the rank reports "local" as its launcher, not torchrun. */
export const LOCAL_LAUNCH_VARIABLE = 'AIFABRIC_LOCAL_NP';

/** torchrun's default port; chosen so an unset MASTER_PORT behaves like PyTorch jobs do. */
export const DEFAULT_MASTER_PORT = 29500;

function wholeNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\s*\d+\s*$/.test(text)) throw new UsageError(`${name}="${text}" is not a whole number`);
  return Number(text);
}

/** Parse `HOST:PORT` or `[v6]:PORT`. */
export function parseHostPort(text: string, what: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`invalid ${what}: "${text}" (expected HOST:PORT, e.g. 10.0.0.1:29500)`);
  }
  return { host: match[1]!, port };
}

/**
 * Rank, size and rendezvous address from the environment; `rendezvous` (HOST:PORT) overrides
 * MASTER_ADDR/MASTER_PORT. Without any launcher variables this is a one-rank job.
 */
export function detectLaunch(env: NodeJS.ProcessEnv, rendezvous?: string): LaunchIdentity {
  let rank = 0;
  let size = 1;
  let source = 'none (single rank)';
  for (const candidate of RANK_SOURCES) {
    const r = wholeNumber(env, candidate.rank);
    const s = wholeNumber(env, candidate.size);
    // Half a pair is a broken launch, not a one-rank job, except under Slurm: an salloc shell has
    // SLURM_NTASKS and no task yet, a batch script's step has SLURM_PROCID=0 without SLURM_NTASKS
    // unless --ntasks was given; both are one rank until srun starts tasks.
    if ((r === undefined) !== (s === undefined) && candidate.source !== 'Slurm') {
      const [set, missing] =
        r === undefined ? [candidate.size, candidate.rank] : [candidate.rank, candidate.size];
      throw new UsageError(
        `${set}=${env[set]} is set but ${missing} is not (${candidate.source} sets both); set both or neither`,
      );
    }
    if (r === undefined || s === undefined) continue;
    if (s < 1 || r >= s) throw new UsageError(`${candidate.rank}=${r} is not below ${candidate.size}=${s}`);
    rank = r;
    size = s;
    source =
      candidate.source === 'torchrun' && env[LOCAL_LAUNCH_VARIABLE] ? `local (--np ${s})` : candidate.source;
    break;
  }
  let masterAddr = env.MASTER_ADDR?.trim() || '127.0.0.1';
  let masterPort = DEFAULT_MASTER_PORT;
  const portText = env.MASTER_PORT?.trim();
  if (portText) {
    masterPort = Number(portText);
    if (!/^\d+$/.test(portText) || masterPort < 1 || masterPort > 65535)
      throw new UsageError(`invalid MASTER_PORT: "${portText}" (expected a port number 1..65535)`);
  }
  if (rendezvous !== undefined)
    ({ host: masterAddr, port: masterPort } = parseHostPort(rendezvous, '--rendezvous'));
  return { rank, size, source, masterAddr, masterPort };
}
