#!/usr/bin/env node
// Streaming-parse benchmark for nccl-tests logs (issue 5): generates NCCL_DEBUG=INFO-style logs of
// 25, 50 and 100 MB (many concatenated all_reduce runs of 16 ranks, NCCL INFO lines before and inside
// each table, Open MPI tags on half of the runs), parses each in a fresh process through the built
// library, and prints wall time, MB/s and peak RSS. Also times the CLI (`aifabric parse --json`) on
// the 100 MB file. Needs `npm run build` first. Usage: node bench/parse-nccl-tests-large.mjs [--keep]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;

if (process.argv[2] === '--child') {
  const [, , , file, mode] = process.argv;
  const { parseNcclTestsFile } = await import(join(ROOT, 'dist', 'parse', 'index.js'));
  const baselineRssMB = process.memoryUsage().rss / MB;
  let tests = 0;
  let rows = 0;
  const started = process.hrtime.bigint();
  const result = await parseNcclTestsFile(file, {
    retainTests: mode === 'retain',
    onTest: (test) => {
      tests += 1;
      rows += test.rows.length;
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ seconds, baselineRssMB, peakRssMB, tests, rows, retained: result.facts.tests.length }));
  process.exit(0);
}

function pad(value, width) {
  return String(value).padStart(width);
}

function runLines(runIndex, tagged) {
  const lines = [];
  const tag = (line) => (tagged ? `[1,0]<stdout>:${line}` : line);
  lines.push(tag('# nccl-tests version 2.19.6 nccl-headers=22907 nccl-library=22907'));
  lines.push(tag('# Collective test starting: all_reduce_perf'));
  lines.push(tag('# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0'));
  lines.push(tag('#'), tag('# Using devices'));
  for (let rank = 0; rank < 16; rank += 1) {
    lines.push(tag(`#  Rank ${pad(rank, 2)} Group  0 Pid ${pad(4000 + rank, 6)} on node-${rank >> 3} device ${pad(rank % 8, 2)} [0000:${(16 + rank).toString(16)}:00] NVIDIA H100 80GB HBM3`));
  }
  // NCCL_DEBUG=INFO init chatter: about 2,000 lines per run across 16 ranks.
  for (let i = 0; i < 2000; i += 1) {
    const rank = i % 16;
    lines.push(`node-${rank >> 3}:${4000 + rank}:${4100 + rank} [${rank % 8}] NCCL INFO Channel ${pad(i % 32, 2)}/32 : ${rank}[${rank % 8}] -> ${(rank + 1) % 16}[${(rank + 1) % 8}] [send] via NET/IB/${rank % 8}/GDRDMA`);
  }
  lines.push(tag('#'));
  lines.push(tag('#                                                              out-of-place                       in-place          '));
  lines.push(tag('#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong '));
  lines.push(tag('#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         '));
  for (let power = 3; power <= 33; power += 1) {
    const size = 2 ** power;
    const time = 20 + size / 2.5e5 + (runIndex % 7);
    const algbw = size / time / 1e3;
    const busbw = algbw * (2 * 15) / 16;
    const half = `  ${pad(time.toFixed(1), 7)}  ${pad(algbw.toFixed(2), 6)}  ${pad(busbw.toFixed(2), 6)}  ${pad(0, 6)}`;
    lines.push(tag(`${pad(size, 12)}  ${pad(size / 4, 12)}  ${pad('float', 8)}  ${pad('sum', 6)}  ${pad(-1, 6)}${half}${half}`));
    if (power % 8 === 0) lines.push(`node-0:4000:4120 [0] NCCL INFO AllReduce: opCount ${power} sendbuff 0x7f0000000000 recvbuff 0x7f1000000000 count ${size / 4} datatype 7 op 0 root 0 comm 0x5555 [nranks=16] stream 0x1`);
  }
  lines.push(tag('# Out of bounds values : 0 OK'), tag('# Avg bus bandwidth    : 123.456 '), tag('#'), tag('# Collective test concluded: all_reduce_perf'), tag('#'), '');
  return `${lines.join('\n')}\n`;
}

async function generate(file, targetBytes) {
  const out = createWriteStream(file);
  let written = 0;
  let runIndex = 0;
  while (written < targetBytes) {
    const chunk = runLines(runIndex, runIndex % 2 === 1);
    written += Buffer.byteLength(chunk);
    runIndex += 1;
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve) => out.end(resolve));
  return runIndex;
}

const dir = mkdtempSync(join(tmpdir(), 'aifabric-bench-parse-'));
console.log(`node ${process.version}, files in ${dir}`);
console.log('  size     mode     runs    rows   seconds     MB/s   RSS before MB   peak RSS MB');
let biggest = '';
for (const sizeMB of [25, 50, 100]) {
  const file = join(dir, `nccl-${sizeMB}MB.log`);
  const runs = await generate(file, sizeMB * MB);
  const bytes = statSync(file).size;
  biggest = file;
  for (const mode of ['stream', 'retain']) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file, mode], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    const m = JSON.parse(child.stdout);
    if (m.tests !== runs) throw new Error(`expected ${runs} runs, parsed ${m.tests}`);
    console.log(`${pad((bytes / MB).toFixed(1), 6)} MB  ${mode.padEnd(7)} ${pad(m.tests, 6)} ${pad(m.rows, 7)} ${pad(m.seconds.toFixed(2), 9)} ${pad((bytes / MB / m.seconds).toFixed(1), 8)} ${pad(m.baselineRssMB.toFixed(0), 15)} ${pad(m.peakRssMB.toFixed(0), 13)}`);
  }
}
const started = process.hrtime.bigint();
const cli = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli', 'main.js'), 'parse', biggest, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
const cliSeconds = Number(process.hrtime.bigint() - started) / 1e9;
if (cli.status !== 0) throw new Error(cli.stderr);
console.log(`CLI: aifabric parse ${(statSync(biggest).size / MB).toFixed(1)} MB --json: exit ${cli.status}, ${cliSeconds.toFixed(2)} s wall (process start and JSON output included), ${(cli.stdout.length / MB).toFixed(1)} MB of JSON`);
if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
