/**
 * Shared by the bench tests: run the built CLI as a user would (argument arrays, timeouts, no
 * shell), run several ranks inside this process for fast correctness sweeps, and find tools.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runBenchRank, freeLoopbackPort, type RankRunOptions, type RankRunResult } from '../../src/bench/index.js';
import type { BenchParams } from '../../src/bench/types.js';

export const CLI = path.resolve(import.meta.dirname, '../../dist/cli/main.js');
export const haveCli = existsSync(CLI);

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run `node dist/cli/main.js ...args`; `onStdout` sees output as it arrives (to act mid-run). */
export function runCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    onStdout?: (soFar: string, pid: number) => void;
    onSpawn?: (child: ChildProcess) => void;
    command?: string[];
  } = {},
): Promise<CliRun> {
  const started = Date.now();
  const [command, ...prefix] = options.command ?? [process.execPath, CLI];
  return new Promise((resolve) => {
    const child = spawn(command!, [...prefix, ...args], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, child.pid ?? -1);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

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
