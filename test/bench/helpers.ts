/**
 * Shared by the bench tests: run several ranks inside this process for fast correctness sweeps, and
 * find tools and processes. The built CLI runs through test/helpers/run-cli.ts.
 */
import { spawnSync } from 'node:child_process';
import {
  runBenchRank,
  freeLoopbackPort,
  type RankRunOptions,
  type RankRunResult,
} from '../../src/bench/index.js';
import type { BenchParams } from '../../src/bench/types.js';

export function which(tool: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$0"', tool], { stdio: 'ignore' }).status === 0;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const baseParams: BenchParams = {
  op: 'all_reduce',
  minBytes: 52,
  maxBytes: 20_000,
  stepFactor: 7,
  iters: 1,
  warmupIters: 0,
  check: true,
  dataType: 'float',
  redOp: 'sum',
  root: 0,
  sockets: 2,
  timeoutS: 20,
};

/** All ranks of a job as concurrent tasks in this process (each with its own sockets). */
export async function runInProcess(
  nranks: number,
  params: BenchParams,
  extra: Pick<RankRunOptions, 'sliceBytes' | 'damage' | 'progress'> = {},
): Promise<RankRunResult[]> {
  const port = await freeLoopbackPort();
  return Promise.all(
    [...Array(nranks).keys()].map((rank) =>
      runBenchRank({
        params,
        identity: { rank, size: nranks, source: 'test', masterAddr: '127.0.0.1', masterPort: port },
        ...extra,
      }),
    ),
  );
}
