/**
 * `--np N`: start N local ranks of this same command, as `mpirun -np N` would on one host, with
 * torchrun-style RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT. Rank 0's stdout is the run's output;
 * every rank's stderr passes through. When one rank fails the others end by themselves within
 * --timeout (they see it die); a last-resort kill after that guarantees no rank outlives the run,
 * and Ctrl-C is forwarded to all of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { LOCAL_LAUNCH_VARIABLE } from './launch-env.js';

export interface LocalLaunchOptions {
  np: number;
  /** Node script and arguments for each rank (without --np). */
  script: string;
  args: string[];
  timeoutS: number;
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
}

export interface LocalLaunchResult {
  exitCode: number;
  /** Exit code (or signal name) per rank. */
  ranks: (number | string)[];
  pids: number[];
}

/** Variables of outer launchers that would override our own rank assignment. */
const LAUNCHER_VARIABLES =
  /^(OMPI_COMM_WORLD_|PMI_|PMIX_RANK|SLURM_PROCID|SLURM_NTASKS|LOCAL_RANK|RANK$|WORLD_SIZE$|MASTER_ADDR$|MASTER_PORT$|AIFABRIC_LOCAL_NP$)/;

export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function launchLocal(options: LocalLaunchOptions): Promise<LocalLaunchResult> {
  const port = await freeLoopbackPort();
  const baseEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(options.env ?? process.env))
    if (!LAUNCHER_VARIABLES.test(key)) baseEnv[key] = value;
  const children: ChildProcess[] = [];
  const results: (number | string)[] = new Array<number | string>(options.np).fill(-1);
  let killTimer: NodeJS.Timeout | undefined;
  const forward = (signal: NodeJS.Signals) => () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  // Ctrl-C (or a TERM from a batch system) ends the run as it ends a one-rank run: 128 + signal.
  let interrupted: number | undefined;
  const onInt = (): void => {
    interrupted ??= 130;
    forward('SIGINT')();
  };
  const onTerm = (): void => {
    interrupted ??= 143;
    forward('SIGTERM')();
  };
  const errors = new FirstErrorOnly(process.stderr);
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    const exits = [...Array(options.np).keys()].map((rank) => {
      const env = {
        ...baseEnv,
        RANK: String(rank),
        WORLD_SIZE: String(options.np),
        LOCAL_RANK: String(rank),
        MASTER_ADDR: '127.0.0.1',
        MASTER_PORT: String(port),
        [LOCAL_LAUNCH_VARIABLE]: String(options.np),
      };
      const child = spawn(process.execPath, [...rankNodeFlags(), options.script, ...options.args], {
        env,
        stdio: ['ignore', rank === 0 ? 'pipe' : 'ignore', 'pipe'],
      });
      children.push(child);
      if (child.stderr) errors.follow(child.stderr, rank);
      if (rank === 0) child.stdout?.pipe(options.stdout ?? process.stdout, { end: false });
      return new Promise<void>((resolve) => {
        child.on('error', () => {
          results[rank] = 'spawn-error';
          resolve();
        });
        child.on('exit', (code, signal) => {
          results[rank] = code ?? signal ?? -1;
          if (code !== 0 && !killTimer) {
            // The rest should stop on their own within --timeout; this is the backstop.
            killTimer = setTimeout(forward('SIGKILL'), (options.timeoutS + 10) * 1000);
          }
          resolve();
        });
      });
    });
    await Promise.all(exits);
    const stdout0 = children[0]?.stdout;
    if (stdout0 && !stdout0.readableEnded)
      await new Promise<void>((resolve) => stdout0.once('end', () => resolve()));
    await errors.drained();
    errors.summarise();
  } finally {
    if (killTimer) clearTimeout(killTimer);
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  return {
    exitCode: interrupted ?? combinedExitCode(results),
    ranks: results,
    pids: children.map((child) => child.pid ?? -1),
  };
}

/**
 * The ranks' stderr, passed through line by line, except that only one rank's closing error
 * (`aifabric: ...`) is printed, once every rank has ended: one fault stops every rank, and N copies
 * of it (or of its consequences) would bury it. The one printed names the cause: a message blaming a
 * rank that printed no error of its own (it died, or hung) wins over one blaming a rank that stopped
 * because of the fault and said so (with halving-doubling's partners a killed rank's partner may stop
 * first, and its neighbours then report the partner); otherwise the first to arrive. The others are
 * counted in one line.
 */
class FirstErrorOnly {
  private readonly errors: { rank: number; line: string }[] = [];
  private readonly pending: Promise<void>[] = [];

  constructor(private readonly out: NodeJS.WritableStream) {}

  follow(stream: NodeJS.ReadableStream, rank: number): void {
    let partial = '';
    const onLine = (line: string): void => {
      if (line.startsWith('aifabric: ') && process.env.AIFABRIC_DEBUG !== '1')
        this.errors.push({ rank, line });
      else this.out.write(`${line}\n`);
    };
    this.pending.push(
      new Promise<void>((resolve) => {
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          const lines = (partial + chunk).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) onLine(line);
        });
        stream.on('end', () => {
          if (partial) onLine(partial);
          resolve();
        });
        stream.on('error', () => resolve());
      }),
    );
  }

  drained(): Promise<void> {
    return Promise.all(this.pending).then(() => undefined);
  }

  summarise(): void {
    if (this.errors.length === 0) return;
    const spoke = new Set(this.errors.map((error) => error.rank));
    // describeRank's form, "rank 2 (host vm, pid 123)": the rank a message blames.
    const blamed = (line: string): number | undefined => {
      const match = /\brank (\d+) \(host /.exec(line);
      return match ? Number(match[1]) : undefined;
    };
    const cause =
      this.errors.find((error) => {
        const rank = blamed(error.line);
        return rank !== undefined && !spoke.has(rank);
      }) ?? this.errors[0]!;
    this.out.write(`${cause.line}\n`);
    const others = this.errors.length - 1;
    if (others > 0)
      this.out.write(`aifabric: (${others} more rank(s) stopped with it; AIFABRIC_DEBUG=1 prints each)\n`);
  }
}

/**
 * Node flags for each rank: this process's own (so `node --cpu-prof aifabric bench tcp --np 4`
 * profiles every rank), then two of ours unless the user chose otherwise:
 * - 1 MiB young-generation semi-spaces. Under a long run's steady allocation V8 otherwise grows
 *   them towards 16 MiB each, and a rank's RSS climbs by 20-28 MiB over minutes with no leak
 *   (bench/tcp-soak.mjs: +22-28 MiB between the first and the fifth minute with V8's defaults,
 *   +3 MiB over 90 s with 1 MiB semi-spaces).
 * - `--single-threaded`: no V8 background threads (concurrent compilers and garbage collectors).
 *   Each rank otherwise brings four, which take the cores the ranks' copies need: a 2-rank 1 MiB
 *   all_reduce on the 2-core VM averaged 810 us with them and 460 us without, its 90th percentile
 *   1.7 ms against 0.41 ms (docs/PERFORMANCE.md, run 6).
 */
function rankNodeFlags(): string[] {
  const flags = [...process.execArgv];
  if (!flags.some((flag) => /^--(max-)?semi-space-size/.test(flag))) flags.push('--max-semi-space-size=1');
  if (!flags.some((flag) => /^--(no-)?single-threaded$/.test(flag))) flags.push('--single-threaded');
  return flags;
}

/** An environment fault (3, or a rank killed by a signal) wins, then bad usage (2), then the highest. */
export function combinedExitCode(results: (number | string)[]): number {
  if (results.every((code) => code === 0)) return 0;
  if (results.some((code) => code === 3 || typeof code === 'string')) return 3;
  if (results.some((code) => code === 2)) return 2;
  return Math.max(...results.map((code) => (typeof code === 'number' && code >= 0 ? code : 3)));
}
