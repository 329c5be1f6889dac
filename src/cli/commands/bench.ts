/**
 * `aifabric bench tcp`: nccl-tests' flags (-b -e -f -n -w -c -d -o -r) with their meanings, plus
 * --op for the collective, --np to start local ranks, --sockets per peer, --ifname, --timeout and
 * --rendezvous. Registering stays cheap; the run is imported when the command executes.
 */
import type { Command } from '@commander-js/extra-typings';
import {
  choiceArg,
  durationArg,
  nonNegativeIntArg,
  positiveIntArg,
  sizeArg,
  type OptionsOf,
} from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';
// Import-free modules, so registering the command stays cheap.
import {
  BENCH_ALGOS as ALGOS,
  BENCH_DATA_TYPES as TYPES,
  BENCH_OP_ORDER as OPS,
  BENCH_REDUCE_OPS as REDOPS,
} from '../../core/collectives.js';

/** `--op all_reduce`, a comma-separated list run one after the other, or `all`. */
function opListArg(value: string): (typeof OPS)[number][] {
  const names = value.trim() === 'all' ? [...OPS] : value.split(',').map((name) => name.trim());
  const check = choiceArg('--op', OPS);
  return names.map((name) => check(name));
}

/** Seconds as a plain number (`--timeout 60`, as nccl-tests' -T) or a duration (`90s`, `500ms`). */
const timeoutArg = (value: string): number =>
  /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : durationArg('--timeout')(value);

/** `--settle 1s`, `500ms` or `0`: seconds. */
const settleArg = (value: string): number =>
  /^\s*0+(\.0+)?\s*$/.test(value) ? 0 : durationArg('--settle')(value);

/** `bench tcp` and its options, under `bench`; registerBench adds the action. */
export function buildBenchTcp(bench: Command) {
  const tcp = bench
    .command('tcp')
    .description('Collectives over kernel TCP sockets, measured and printed the way nccl-tests does.')
    .option(
      '--op <collective>',
      `collective: ${OPS.join(', ')}; a comma-separated list or "all" runs them one after the other`,
      opListArg,
      ['all_reduce'] as (typeof OPS)[number][],
    )
    .option(
      '-b, --minbytes <size>',
      'smallest message size (8, 128K, 256M: powers of 1024)',
      sizeArg('-b'),
      32 * 1024 * 1024,
    )
    .option('-e, --maxbytes <size>', 'largest message size', sizeArg('-e'), 32 * 1024 * 1024)
    .option('-f, --stepfactor <n>', 'multiply the size by this between rows', positiveIntArg('-f'), 2)
    .option('-n, --iters <n>', 'timed iterations per size', positiveIntArg('-n'), 20)
    .option(
      '-w, --warmup_iters <n>',
      'untimed iterations at the largest and smallest size',
      nonNegativeIntArg('-w'),
      5,
    )
    .option(
      '--settle <duration>',
      "before timing each size, untimed iterations until the ranks' JavaScript is compiled: at most 300 or this long (0: none)",
      settleArg,
      1,
    )
    .option(
      '-N, --run_cycles <n>',
      'run the whole sweep N times (0: until interrupted, table output only)',
      nonNegativeIntArg('-N'),
      1,
    )
    .option(
      '-c, --check <0|1>',
      'check every result element (1) or not (0); wrong elements exit 1',
      choiceArg('-c', ['0', '1'] as const),
      '1' as '0' | '1',
    )
    .option(
      '-d, --datatype <type>',
      `element type: ${TYPES.join(', ')}`,
      choiceArg('-d', TYPES),
      'float' as (typeof TYPES)[number],
    )
    .option(
      '-o, --redop <op>',
      `reduction: ${REDOPS.join(', ')}`,
      choiceArg('-o', REDOPS),
      'sum' as (typeof REDOPS)[number],
    )
    .option('-r, --root <rank>', 'root rank of broadcast and reduce', nonNegativeIntArg('-r'), 0)
    .option(
      '--np <n>',
      'start N local ranks (without it, rank and size come from mpirun, srun, torchrun or a Job)',
      positiveIntArg('--np'),
    )
    .option(
      '--algo <name>',
      `all_reduce algorithm: auto (halving-doubling up to 16 MiB on 4, 8, 16... ranks, and on other counts from 3 where a host runs more ranks than cores; the ring otherwise), ring (NCCL's) or halving-doubling (Rabenseifner's, Open MPI's choice at mid sizes; extra ranks beyond a power of two fold in first)`,
      choiceArg('--algo', ALGOS),
      'auto' as (typeof ALGOS)[number],
    )
    .option(
      '--sockets <k>',
      'TCP connections per peer (as NCCL_NSOCKS_PERTHREAD)',
      positiveIntArg('--sockets'),
      1,
    )
    .option('--ifname <name>', 'network interface for data connections (as NCCL_SOCKET_IFNAME)')
    .option(
      '--timeout <duration>',
      'give up (exit 3) when a peer makes no progress this long',
      timeoutArg,
      60,
    )
    .option(
      '--rendezvous <host:port>',
      'rank 0 address for the rendezvous (default MASTER_ADDR:MASTER_PORT, 127.0.0.1:29500)',
    );
  return addStoreOptions(
    addOutputOptions(tcp, {
      json: 'print the result envelope as JSON (rank 0)',
      out: 'also write the JSON result to FILE (rank 0)',
    }),
  );
}

export type BenchTcpOptions = OptionsOf<typeof buildBenchTcp>;

export function registerBench(program: Command): void {
  const bench = program
    .command('bench')
    .description('Measure real collectives on this machine and its network.');
  buildBenchTcp(bench).action(async (options) => {
    const { runBenchTcpCommand } = await import('./bench-tcp-action.js');
    process.exitCode = await runBenchTcpCommand(options);
  });
}
