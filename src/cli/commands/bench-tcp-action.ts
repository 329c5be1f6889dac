/**
 * The run behind `aifabric bench tcp`. Either this process is one rank (rank and size from the
 * launcher's variables) or, with --np, it starts the ranks and relays rank 0's output.
 * Rank 0 prints the nccl-tests table as rows finish (or the envelope with --json); other ranks
 * print nothing on stdout. Exit code: 0, 1 when any element was wrong, 3 on a fault.
 */
import { UsageError } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';
import {
  benchResult,
  detectLaunch,
  formatFooter,
  formatHeader,
  formatRow,
  interfaceAddress,
  launchLocal,
  parseDamage,
  parseProgressMode,
  runBenchRank,
  type BenchParams,
  type RankInfo,
} from '../../bench/index.js';
import { emitResult } from '../emit.js';
import { sizeArg } from '../options.js';
import type { BenchTcpOptions } from './bench.js';

/** This command's arguments with --np removed, for the ranks it starts. */
export function argsWithoutNp(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--np') i++;
    else if (!arg.startsWith('--np=')) out.push(arg);
  }
  return out;
}

export async function runBenchTcpCommand(options: BenchTcpOptions): Promise<number> {
  if (options.maxbytes < options.minbytes)
    throw new UsageError(`-e ${options.maxbytes} is smaller than -b ${options.minbytes}`);
  if (options.timeout <= 0) throw new UsageError('--timeout must be above 0');
  if (options.run_cycles === 0 && (options.json || options.out || options.save)) {
    throw new UsageError(
      '-N 0 runs until interrupted and prints the table as it goes; --json, --out and --save need a finite -N',
    );
  }
  const ops = options.op;
  // Read before any rank starts, so a bad value is one message, not one per rank.
  const progress = parseProgressMode(process.env.AIFABRIC_BENCH_PROGRESS);
  if (options.np !== undefined) {
    if (options.root >= options.np && ops.some((op) => op === 'broadcast' || op === 'reduce')) {
      throw new UsageError(
        `invalid value for --root: ${options.root} (--np ${options.np} gives ranks 0..${options.np - 1})`,
      );
    }
    // Local ranks share this host's interfaces: check --ifname once, not once per rank.
    if (options.ifname) interfaceAddress(options.ifname);
    const script = process.argv[1];
    if (!script) throw new UsageError('--np: cannot tell which script to start for each rank');
    const launched = await launchLocal({
      np: options.np,
      script,
      args: argsWithoutNp(process.argv.slice(2)),
      timeoutS: options.timeout,
    });
    return launched.exitCode;
  }

  const params: BenchParams = {
    op: ops[0]!,
    minBytes: options.minbytes,
    maxBytes: options.maxbytes,
    stepFactor: options.stepfactor,
    iters: options.iters,
    warmupIters: options.warmup_iters,
    settleMs: options.settle * 1000,
    check: options.check === '1',
    dataType: options.datatype,
    redOp: options.redop,
    root: options.root,
    sockets: options.sockets,
    timeoutS: options.timeout,
    algo: options.algo,
  };
  const identity = detectLaunch(process.env, options.rendezvous);
  const damage = parseDamage(process.env.AIFABRIC_BENCH_CORRUPT);
  // In the namespace testbed every host shares the kernel's hostname; the testbed names each one.
  const hostName = process.env.AIFABRIC_TESTBED_HOST;
  const human = !options.json;
  const write = (text: string): void => {
    if (human) process.stdout.write(text);
  };
  let run0Peers: RankInfo[] = [];
  const sliceText = process.env.AIFABRIC_BENCH_SLICE;
  const run = await runBenchRank({
    ...(sliceText ? { sliceBytes: sizeArg('AIFABRIC_BENCH_SLICE')(sliceText) } : {}),
    ...(progress ? { progress } : {}),
    params,
    identity,
    ...(options.ifname ? { ifname: options.ifname } : {}),
    ...(damage ? { damage } : {}),
    ...(hostName ? { hostName } : {}),
    ops,
    cycles: options.run_cycles,
    // One header per op's sweep; a single op repeated by -N keeps one table, as nccl-tests does.
    onSweepStart: (op, cycle) =>
      (cycle === 0 || ops.length > 1) &&
      write(
        formatHeader({
          params: { ...params, op },
          peers: run0Peers,
          version: VERSION,
          launcher: identity.source,
          ...(options.ifname ? { ifname: options.ifname } : {}),
        }),
      ),
    onPeers: (peers) => {
      run0Peers = peers;
    },
    onRow: (row) => write(formatRow(row)),
    onSweepEnd: (op, _cycle, summary) =>
      ops.length > 1 && write(formatFooter({ ...params, op }, summary.outOfBounds, summary.avgBusbwGBps)),
  });
  if (identity.rank === 0) {
    const result = benchResult(params, run, identity.source, options.ifname, ops);
    if (human) {
      if (ops.length === 1) write(formatFooter(params, run.outOfBounds, run.avgBusbwGBps));
      if (options.out || options.save)
        await emitResult(result, { out: options.out, save: options.save, db: options.db }, () => '');
    } else {
      await emitResult(
        result,
        { json: true, out: options.out, save: options.save, db: options.db },
        () => '',
      );
    }
  }
  return run.outOfBounds > 0 ? 1 : 0;
}
