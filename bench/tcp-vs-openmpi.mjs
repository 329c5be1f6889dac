#!/usr/bin/env node
// `aifabric bench tcp` against the peers a user would pick instead, in one run on this machine:
//  1. all_reduce busbw against Open MPI's MPI_Allreduce over TCP (bench/mpi-allreduce.c, built here
//     with mpicc from libopenmpi-dev, timed as nccl-tests times), started with
//     mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl tcp,self
//     --mca btl_tcp_if_include lo -np N, so Open MPI moves the data over loopback TCP, not shared
//     memory; sizes 1..64 MiB, ranks 2..8, the two tools interleaved, median of --repeat runs;
//     beside Open MPI's default choice, the same MPI_Allreduce forced to its ring (coll_tuned
//     allreduce_algorithm 4, ompi/mca/coll/base/coll_base_allreduce.c), the algorithm ours runs,
//     so the algorithm's share of the gap is told apart from the implementation's;
//  2. 2-rank sendrecv algbw (each rank sends and receives at once) against iperf3 --bidir, per
//     direction, measured in the same run.
// Prints busbw of both and the ratio ours/theirs per size; --json prints the table as JSON.
//   node bench/tcp-vs-openmpi.mjs [--repeat 3] [--ranks 2,3,4,5,6,7,8] [--iters 5] [--warmup 2] [--max 64M] [--testbed NAME] [--with-events] [--with-ring] [--baseline-cli PATH] [--busy N] [--interleave run|cell]
// --interleave run (the default) alternates the tools run by run, each run a sweep of every size; --interleave cell
// alternates them size by size (each launch measures one size, -b S -e S), so the two figures of one cell are taken
// seconds apart instead of minutes: the VM's load drifts by 2x within ten minutes (docs/PERFORMANCE.md, run 13), and a
// ratio near 1 is then decided by when each tool happened to measure that cell. With it, --cell-bytes B (default 0)
// raises a cell's iterations to B / size where that is more than --iters (512M: 512 iterations at 1 MiB, 64 at 8 MiB),
// the same count for both tools, so a small-size cell lasts long enough that one scheduler stall does not decide it.
// --with-events adds ours with AIFABRIC_BENCH_PROGRESS=events (libuv's callbacks instead of the polling
// progress engine) to the interleave, as its own column; --with-ring adds ours forced to the ring
// (--algo ring) beside ours with its default --algo auto (halving-doubling on 4 and 8 ranks up to 16 MiB).
// --baseline-cli PATH adds another build of aifabric (its dist/cli/main.js, e.g. from a `git worktree` of the
// commit before a change) to the interleave as its own column, so a change is measured against what it replaces
// in the same run.
// --busy N keeps N busy-loop processes (`node -e 'for (;;) {}'`, started here and killed at the end) on the cores
// for the whole run, both tools alike: the busy node a benchmark meets on a cluster, made the same for every run.
// With --testbed NAME both run under `aifabric testbed mpirun` (real Open MPI, one rank per emulated host of
// that testbed, traffic over its shaped ports); the sendrecv-vs-iperf3 part is then left out.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, cli, root } from './script-args.mjs';

const repeat = Number(arg('repeat', '3'));
const rankCounts = arg('ranks', '2,3,4,5,6,7,8').split(',').map(Number);
const iters = arg('iters', '5');
const warmup = arg('warmup', '2');
const maxSize = arg('max', '64M');
const asJson = process.argv.includes('--json');
const withEvents = process.argv.includes('--with-events');
const withRing = process.argv.includes('--with-ring');
const baselineCli = arg('baseline-cli', '');
// --testbed NAME: run on a testbed made by `aifabric testbed up` (one rank per emulated host); no iperf3 part.
const testbed = arg('testbed', '');
const busy = Number(arg('busy', '0'));
if (!Number.isInteger(busy) || busy < 0) {
  console.error(`--busy: expected a whole number of busy-loop processes, got ${arg('busy', '')}`);
  process.exit(2);
}
const interleave = arg('interleave', 'run');
if (interleave !== 'run' && interleave !== 'cell') {
  console.error(`--interleave: expected run or cell, got ${interleave}`);
  process.exit(2);
}
const cellBytes = parseBytes(arg('cell-bytes', '0'));
if (!(cellBytes >= 0) || (cellBytes > 0 && interleave !== 'cell')) {
  console.error(`--cell-bytes: expected a size such as 512M, with --interleave cell; got ${arg('cell-bytes', '')}`);
  process.exit(2);
}
/** Iterations of a cell of `size` bytes (undefined: the whole sweep, --iters). */
const itersFor = (size) => String(size === undefined ? Number(iters) : Math.max(Number(iters), Math.ceil(cellBytes / size)));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const log = (text) => process.stderr.write(`${text}\n`);

/** 64M, 512K, 1G or a plain byte count. */
function parseBytes(text) {
  const unit = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[text.slice(-1).toUpperCase()];
  return unit === undefined ? Number(text) : Number.parseFloat(text) * unit;
}

const work = mkdtempSync(path.join(os.tmpdir(), 'tcp-vs-openmpi-'));
const binary = path.join(work, 'mpi-allreduce');
const built = spawnSync('mpicc', ['-O2', '-o', binary, path.join(root, 'bench/mpi-allreduce.c')], { encoding: 'utf8' });
if (built.status !== 0) {
  log(`mpicc failed (apt-get install libopenmpi-dev): ${built.stderr ?? built.error}`);
  process.exit(3);
}

/** Rows of an nccl-tests-layout table: size -> [out-of-place busbw, in-place busbw]. */
function tableBusbw(text) {
  const rows = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const f = line.trim().split(/\s+/);
    if (f.length >= 13) rows.set(Number(f[0]), [Number(f[7]), Number(f[11])]);
  }
  return rows;
}

/** With --testbed NAME, both tools run as N ranks on N emulated hosts under `aifabric testbed mpirun`. */
function onTestbed(np, program, env = {}) {
  return spawnSync(process.execPath, [cli, 'testbed', 'mpirun', '--name', testbed, '--np', String(np), '--', ...program], { encoding: 'utf8', timeout: 900_000, env: { ...process.env, ...env } });
}

/** Sizes of one launch: the whole sweep (1 MiB to --max), or with --interleave cell one size. */
const sizeFlags = (size) => (size === undefined ? ['-b', '1M', '-e', maxSize] : ['-b', String(size), '-e', String(size)]);
const maxBytes = parseBytes(maxSize);
const sweepSizes = [];
for (let size = 1024 ** 2; size <= maxBytes; size *= 2) sweepSizes.push(size);

function ours(op, np, progress = 'poll', algo = 'auto', build = cli, size = undefined) {
  const sweep = [...sizeFlags(size), '-f', '2', '-n', itersFor(size), '-w', warmup, '-c', '0', '--algo', algo, '--json'];
  const env = { ...process.env, AIFABRIC_BENCH_PROGRESS: progress };
  const run = testbed
    ? onTestbed(np, [process.execPath, build, 'bench', 'tcp', '--op', op, ...sweep], { AIFABRIC_BENCH_PROGRESS: progress })
    : spawnSync(process.execPath, [build, 'bench', 'tcp', '--op', op, '--np', String(np), ...sweep], { encoding: 'utf8', timeout: 900_000, env });
  if (run.status !== 0) throw new Error(`bench tcp --np ${np}: exit ${run.status}: ${run.stderr}`);
  const rows = new Map();
  for (const row of JSON.parse(run.stdout).metrics.rows) rows.set(row.sizeBytes, [row.outOfPlace, row.inPlace]);
  return rows;
}

/** Open MPI's own choice, or with `algorithm` its coll/tuned algorithm number (4 = ring). */
function openMpi(np, algorithm, size = undefined) {
  const forced = algorithm === undefined ? [] : ['--mca', 'coll_tuned_use_dynamic_rules', '1', '--mca', 'coll_tuned_allreduce_algorithm', String(algorithm)];
  const args = [...forced, '--allow-run-as-root', '--oversubscribe', '--mca', 'pml', 'ob1', '--mca', 'btl', 'tcp,self', '--mca', 'btl_tcp_if_include', 'lo', '-np', String(np), binary, ...sizeFlags(size), '-f', '2', '-n', itersFor(size), '-w', warmup];
  // On the testbed, Open MPI's MCA parameters travel as OMPI_MCA_* variables (testbed mpirun sets pml, btl and interfaces).
  const forcedEnv = algorithm === undefined ? {} : { OMPI_MCA_coll_tuned_use_dynamic_rules: '1', OMPI_MCA_coll_tuned_allreduce_algorithm: String(algorithm) };
  const run = testbed
    ? onTestbed(np, [binary, ...sizeFlags(size), '-f', '2', '-n', itersFor(size), '-w', warmup], forcedEnv)
    : spawnSync('mpirun', args, { encoding: 'utf8', timeout: 900_000 });
  if (run.status !== 0) throw new Error(`mpirun -np ${np}: exit ${run.status}: ${run.stderr}`);
  return tableBusbw(run.stdout);
}

async function iperf3Bidir(seconds) {
  const port = 5201 + Math.floor(Math.random() * 1000);
  const server = spawn('iperf3', ['-s', '-1', '-p', String(port), '-B', '127.0.0.1'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const client = spawnSync('iperf3', ['-c', '127.0.0.1', '-p', String(port), '-t', String(seconds), '--bidir', '-J'], { encoding: 'utf8', timeout: (seconds + 20) * 1000 });
  server.kill();
  const end = JSON.parse(client.stdout).end;
  // Per direction: the forward stream (sum_received) and the reverse (sum_received_bidir_reverse).
  const forward = end.sum_received.bits_per_second / 8e9;
  const reverse = (end.sum_received_bidir_reverse?.bits_per_second ?? end.sum_received.bits_per_second) / 8e9;
  return (forward + reverse) / 2;
}

const busyLoops = [];
for (let i = 0; i < busy; i++) busyLoops.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBusy = () => {
  for (const loop of busyLoops) loop.kill('SIGKILL');
};
process.on('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const started = Date.now();
const allReduce = [];
for (const np of rankCounts) {
  const mine = [];
  const theirs = [];
  const theirRing = [];
  const mineEvents = [];
  const mineRing = [];
  const baseline = [];
  // One run of every tool over `size` (undefined: the whole sweep), interleaved, rotating which goes first, so drift
  // in machine load hits all alike; per-size results merge into one table per repeat.
  const interleaved = (r, size, turn) => {
    const put = (list, rows) => {
      if (size === undefined || list.length <= r) list[r] = rows;
      else for (const [key, value] of rows) list[r].set(key, value);
    };
    const runs = [() => put(mine, ours('all_reduce', np, 'poll', 'auto', cli, size)), () => put(theirs, openMpi(np, undefined, size)), () => put(theirRing, openMpi(np, 4, size))];
    if (withEvents) runs.push(() => put(mineEvents, ours('all_reduce', np, 'events', 'auto', cli, size)));
    if (withRing) runs.push(() => put(mineRing, ours('all_reduce', np, 'poll', 'ring', cli, size)));
    if (baselineCli) runs.push(() => put(baseline, ours('all_reduce', np, 'poll', 'auto', baselineCli, size)));
    for (let k = 0; k < runs.length; k++) runs[(k + turn) % runs.length]();
  };
  for (let r = 0; r < repeat; r++) {
    if (interleave === 'run') interleaved(r, undefined, r);
    else sweepSizes.forEach((size, i) => interleaved(r, size, r + i));
    log(`all_reduce np=${np} run ${r + 1}/${repeat} done (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  for (const size of mine[0].keys()) {
    const oursOut = median(mine.map((rows) => rows.get(size)[0].busbwGBps));
    const oursIn = median(mine.map((rows) => rows.get(size)[1].busbwGBps));
    const mpiOut = median(theirs.map((rows) => rows.get(size)?.[0] ?? NaN));
    const mpiIn = median(theirs.map((rows) => rows.get(size)?.[1] ?? NaN));
    const ringOut = median(theirRing.map((rows) => rows.get(size)?.[0] ?? NaN));
    const eventsOut = withEvents ? median(mineEvents.map((rows) => rows.get(size)[0].busbwGBps)) : NaN;
    const oursRingOut = withRing ? median(mineRing.map((rows) => rows.get(size)[0].busbwGBps)) : NaN;
    const baselineOut = baselineCli ? median(baseline.map((rows) => rows.get(size)[0].busbwGBps)) : NaN;
    // The median of each repeat's own ratio: the two figures of one repeat were measured next to each other (seconds
    // apart with --interleave cell), so a slow spell of the machine that hits both cancels in it.
    const pairedOut = median(mine.map((rows, r) => rows.get(size)[0].busbwGBps / (theirs[r].get(size)?.[0] ?? NaN)));
    const pairedIn = median(mine.map((rows, r) => rows.get(size)[1].busbwGBps / (theirs[r].get(size)?.[1] ?? NaN)));
    allReduce.push({ nranks: np, sizeBytes: size, oursBusbwGBps: oursOut, openMpiBusbwGBps: mpiOut, ratio: oursOut / mpiOut, pairedRatio: pairedOut, inPlacePairedRatio: pairedIn, openMpiRingBusbwGBps: ringOut, ringRatio: oursOut / ringOut, oursInPlaceBusbwGBps: oursIn, openMpiInPlaceBusbwGBps: mpiIn, inPlaceRatio: oursIn / mpiIn, ...(withEvents ? { oursEventsBusbwGBps: eventsOut, eventsRatio: eventsOut / mpiOut } : {}), ...(withRing ? { oursRingBusbwGBps: oursRingOut, oursRingRatio: oursRingOut / mpiOut } : {}), ...(baselineCli ? { baselineBusbwGBps: baselineOut, baselineRatio: baselineOut / mpiOut } : {}) });
  }
}

const sendrecv = [];
if (!testbed) {
  const mine = [];
  const reference = [];
  const baseline = [];
  for (let r = 0; r < repeat; r++) {
    reference.push(await iperf3Bidir(3));
    mine.push(ours('sendrecv', 2));
    if (baselineCli) baseline.push(ours('sendrecv', 2, 'poll', 'auto', baselineCli));
  }
  const iperf = median(reference);
  for (const size of mine[0].keys()) {
    const algbw = median(mine.map((rows) => rows.get(size)[0].algbwGBps));
    const baselineAlgbw = baselineCli ? median(baseline.map((rows) => rows.get(size)[0].algbwGBps)) : NaN;
    sendrecv.push({ sizeBytes: size, oursAlgbwGBps: algbw, iperf3BidirPerDirectionGBps: iperf, ratio: algbw / iperf, ...(baselineCli ? { baselineAlgbwGBps: baselineAlgbw, baselineRatio: baselineAlgbw / iperf } : {}) });
  }
}
stopBusy();
rmSync(work, { recursive: true, force: true });

const load = os.loadavg()[0];
if (asJson) {
  console.log(JSON.stringify({ repeat, interleave, iters: Number(iters), cellBytes, warmup: Number(warmup), busyLoops: busy, loadAverage1m: load, allReduce, sendrecv }, null, 2));
} else {
  const where = testbed ? `on testbed ${testbed}'s eth0, one rank per emulated host` : 'on lo';
  console.log(`# all_reduce busbw (GB/s), out of place, median of ${repeat}, interleaved by ${interleave}${cellBytes > 0 ? `, at least ${cellBytes} bytes of iterations a cell` : ""}; ours = aifabric bench tcp, MPI = Open MPI MPI_Allreduce over btl tcp ${where}`);
  console.log(`# ranks        size     ours      MPI   ratio | MPI ring   ratio | in place: ours      MPI   ratio | paired out   in${withEvents ? ' | ours events  ratio' : ''}${withRing ? ' | ours ring  ratio' : ''}${baselineCli ? ' | baseline  ratio' : ''}`);
  for (const row of allReduce) {
    const events = (withEvents ? ` | ${row.oursEventsBusbwGBps.toFixed(3).padStart(11)} ${row.eventsRatio.toFixed(2).padStart(6)}` : '') + (withRing ? ` | ${row.oursRingBusbwGBps.toFixed(3).padStart(9)} ${row.oursRingRatio.toFixed(2).padStart(6)}` : '') + (baselineCli ? ` | ${row.baselineBusbwGBps.toFixed(3).padStart(8)} ${row.baselineRatio.toFixed(2).padStart(6)}` : '');
    console.log(
      `${String(row.nranks).padStart(7)} ${String(row.sizeBytes).padStart(11)} ${row.oursBusbwGBps.toFixed(3).padStart(8)} ${row.openMpiBusbwGBps.toFixed(3).padStart(8)} ${row.ratio.toFixed(2).padStart(7)} | ${row.openMpiRingBusbwGBps.toFixed(3).padStart(8)} ${row.ringRatio.toFixed(2).padStart(7)} | ${row.oursInPlaceBusbwGBps.toFixed(3).padStart(14)} ${row.openMpiInPlaceBusbwGBps.toFixed(3).padStart(8)} ${row.inPlaceRatio.toFixed(2).padStart(7)} | ${row.pairedRatio.toFixed(2).padStart(10)} ${row.inPlacePairedRatio.toFixed(2).padStart(4)}${events}`,
    );
  }
  if (testbed) console.log(`# on testbed ${testbed}: one rank per emulated host, under aifabric testbed mpirun`);
  else console.log(`# sendrecv 2 ranks: algbw per direction (GB/s) against iperf3 --bidir per direction, median of ${repeat}`);
  for (const row of sendrecv) console.log(`${String(row.sizeBytes).padStart(19)} ${row.oursAlgbwGBps.toFixed(3).padStart(8)} ${row.iperf3BidirPerDirectionGBps.toFixed(3).padStart(8)} ${row.ratio.toFixed(2).padStart(7)}${baselineCli ? ` | baseline ${row.baselineAlgbwGBps.toFixed(3)} ${row.baselineRatio.toFixed(2)}` : ''}`);
  if (busy > 0) console.log(`# ${busy} busy-loop processes on the cores throughout, both tools alike`);
  console.log(`# load average (1 min) at the end: ${load.toFixed(2)}; TCP congestion control: ${spawnSync('sysctl', ['-n', 'net.ipv4.tcp_congestion_control'], { encoding: 'utf8' }).stdout.trim()}`);
}
