#!/usr/bin/env node
// `aifabric bench tcp` against iperf3 on this machine's loopback, measured in the same session:
//  1. iperf3 single stream (the reference) and iperf3 --bidir (per direction);
//  2. 2-rank broadcast at 64 MB (one direction, like iperf3) and 2-rank sendrecv at 64 MB (each rank sends 64 MB to the other while receiving 64 MB):
//     algbw per rank against iperf3's single stream, the acceptance ratio (target >= 80%);
//  3. all_reduce busbw at 64 MB for 2, 4 and 8 local ranks;
//  4. reductions (float/double/int32 x sum/max/min) in GB/s of reduced data per CPU-second
//     (one core; CPU time, so a busy machine does not understate it).
// Medians of --repeat runs (default 3). Needs iperf3 and the built CLI (npm run build):
//   node bench/tcp-vs-iperf3.mjs [--repeat 3] [--seconds 3]
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import os from 'node:os';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist/cli/main.js');
const { reduceInto } = await import(path.join(root, 'dist/bench/datatypes.js'));
const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const repeat = flag('repeat', 3);
const seconds = flag('seconds', 3);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function iperf3(extra) {
  const port = 5201 + Math.floor(Math.random() * 1000);
  const server = spawn('iperf3', ['-s', '-1', '-p', String(port), '-B', '127.0.0.1'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const client = spawnSync('iperf3', ['-c', '127.0.0.1', '-p', String(port), '-t', String(seconds), '-J', ...extra], { encoding: 'utf8', timeout: (seconds + 20) * 1000 });
  server.kill();
  const report = JSON.parse(client.stdout);
  // With --bidir, sum_received is the forward direction alone (the reverse has its own _bidir_reverse sums).
  const sum = report.end.sum_received.bits_per_second;
  return sum / 8e9;
}

function bench(args) {
  const run = spawnSync(process.execPath, [cli, 'bench', 'tcp', '--json', '-c', '0', ...args], { encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) throw new Error(`bench tcp ${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout).metrics.rows[0];
}

function reductionGBps(dataType, op) {
  const n = 16 * 1024 * 1024;
  const Ctor = { float: Float32Array, double: Float64Array, int32: Int32Array }[dataType];
  const a = new Ctor(n).fill(3);
  const b = new Ctor(n).fill(5);
  const dst = new Ctor(n);
  reduceInto(dst, a, b, op); // warm up the JIT on this shape
  // CPU seconds, not wall seconds: "per core" must not depend on what else the machine runs.
  const times = [];
  for (let r = 0; r < 5; r++) {
    const before = process.cpuUsage();
    reduceInto(dst, a, b, op);
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1e6);
  }
  return (n * Ctor.BYTES_PER_ELEMENT) / median(times) / 1e9;
}

console.log(`# ${new Date().toISOString()} ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}`);
// Each repeat measures iperf3 and ours back to back and keeps the ratio of the pair, so a
// machine whose load changes during the run still gives comparable ratios (medians below).
const rows = { single: [], bidir: [], oneway: [], sendrecv1: [], sendrecv2: [] };
const ratios = { oneway: [], sendrecv1: [], sendrecv2: [], sendrecvVsBidir: [] };
for (let r = 0; r < repeat; r++) {
  const single = await iperf3([]);
  const oneway = bench(['--np', '2', '--op', 'broadcast', '-b', '64M', '-e', '64M', '-n', '20', '-w', '3']).outOfPlace.algbwGBps;
  const bidir = await iperf3(['--bidir']);
  const sendrecv1 = bench(['--np', '2', '--op', 'sendrecv', '-b', '64M', '-e', '64M', '-n', '20', '-w', '3']).outOfPlace.algbwGBps;
  const sendrecv2 = bench(['--np', '2', '--op', 'sendrecv', '-b', '64M', '-e', '64M', '-n', '20', '-w', '3', '--sockets', '2']).outOfPlace.algbwGBps;
  Object.entries({ single, bidir, oneway, sendrecv1, sendrecv2 }).forEach(([key, value]) => rows[key].push(value));
  ratios.oneway.push(oneway / single);
  ratios.sendrecv1.push(sendrecv1 / single);
  ratios.sendrecv2.push(sendrecv2 / single);
  ratios.sendrecvVsBidir.push(sendrecv1 / bidir);
}
const pct = (ratio) => `${(100 * median(ratio)).toFixed(0)}%`;
console.log('\n| measurement (loopback, 64 MB), median of paired runs | GB/s | vs iperf3 single stream (paired) |');
console.log('|---|---:|---:|');
console.log(`| iperf3, 1 stream, one direction | ${median(rows.single).toFixed(2)} | 100% |`);
console.log(`| bench tcp broadcast, 2 ranks (one direction, like iperf3), algbw | ${median(rows.oneway).toFixed(2)} | ${pct(ratios.oneway)} |`);
console.log(`| iperf3 --bidir, 1 stream each way, per direction | ${median(rows.bidir).toFixed(2)} | |`);
console.log(`| bench tcp sendrecv, 2 ranks, --sockets 1 (both directions at once), algbw | ${median(rows.sendrecv1).toFixed(2)} | ${pct(ratios.sendrecv1)} (vs iperf3 --bidir: ${pct(ratios.sendrecvVsBidir)}) |`);
console.log(`| bench tcp sendrecv, 2 ranks, --sockets 2, algbw | ${median(rows.sendrecv2).toFixed(2)} | ${pct(ratios.sendrecv2)} |`);

console.log('\n| all_reduce 64 MB float sum | busbw GB/s (out-of-place) | busbw GB/s (in-place) |');
console.log('|---|---:|---:|');
for (const np of [2, 4, 8]) {
  const rows = [];
  for (let r = 0; r < repeat; r++) rows.push(bench(['--np', String(np), '--op', 'all_reduce', '-b', '64M', '-e', '64M', '-n', '5', '-w', '1']));
  console.log(`| ${np} local ranks | ${median(rows.map((row) => row.outOfPlace.busbwGBps)).toFixed(2)} | ${median(rows.map((row) => row.inPlace.busbwGBps)).toFixed(2)} |`);
}

console.log('\n| reduction dst = a OP b, 64 MB per operand, GB/s of dst per CPU-second | sum | max | min |');
console.log('|---|---:|---:|---:|');
for (const dataType of ['float', 'double', 'int32']) {
  console.log(`| ${dataType} | ${['sum', 'max', 'min'].map((op) => reductionGBps(dataType, op).toFixed(2)).join(' | ')} |`);
}
