#!/usr/bin/env node
/**
 * Speed and memory of the Kineto trace reader (readTraceFiles, from dist/): the median of 3 wall
 * times reading HolisticTraceAnalysis's 54 MB df_index_resolver trace (../shared/data/traces), and
 * one read of a generated trace of at least 1 GiB (written to os.tmpdir(), deleted after) with
 * its peak RSS. Each read runs in a child process so maxRSS is that read's alone. Prints figures;
 * never passes or fails on time. Run `npm run build` first.
 *   node bench/trace-speed.mjs [--gib 1]
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  const { readTraceFiles } = await import(join(root, 'dist', 'parse', 'index.js'));
  const start = performance.now();
  const ranks = await readTraceFiles([process.argv[3]]);
  const readMs = performance.now() - start;
  const rank = ranks[0];
  console.log(JSON.stringify({ readMs, maxRssMiB: process.resourceUsage().maxRSS / 1024, events: rank.counts.events, kernels: rank.counts.kernels, collectives: rank.collectives.length }));
  process.exit(0);
}

function child(file) {
  const start = performance.now();
  const out = execFileSync(process.execPath, [self, '--child', file], { encoding: 'utf8', timeout: 30 * 60_000, maxBuffer: 1 << 20 });
  return { ...JSON.parse(out.trim().split('\n').pop()), wallMs: performance.now() - start };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A Kineto-shaped trace of at least `bytes`: per iteration a CPU op, launches, compute kernels and one NCCL all-reduce with args. */
async function generate(path, bytes) {
  const out = createWriteStream(path);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],\n');
  await write('  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]}], "nccl_version": "2.21.5"},\n');
  await write('  "traceEvents": [\n');
  let written = 0;
  let iteration = 0;
  let correlation = 1;
  while (written < bytes) {
    const lines = [];
    for (let k = 0; k < 500; k++, iteration++) {
      const t = 1_700_000_000_000_000 + iteration * 1000;
      if (iteration % 100_000 === 0) lines.push(`  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#${iteration / 100_000}", "pid": 1, "tid": 1, "ts": ${t}, "dur": 100000000, "args": {"External id": ${iteration}}}`);
      lines.push(`  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ${t}, "dur": 40, "args": {"External id": ${iteration}, "Sequence number": ${iteration}, "Fwd thread id": 0, "Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}}`);
      lines.push(`  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ${t + 5}, "dur": 6, "args": {"External id": ${iteration}, "cbid": 211, "correlation": ${correlation}}}`);
      lines.push(`  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": ${t + 20}, "dur": 300, "args": {"External id": ${iteration}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": ${correlation++}, "registers per thread": 168, "shared memory": 213248, "blocks per SM": 1, "warps per SM": 12, "grid": [132, 1, 1], "block": [384, 1, 1]}}`);
      if (iteration % 10 === 0) {
        lines.push(`  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": ${t + 50}, "dur": 8, "args": {"External id": ${iteration}, "correlation": ${correlation}}}`);
        lines.push(`  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20, "ts": ${t + 400}, "dur": 500, "args": {"External id": ${iteration}, "device": 0, "stream": 20, "correlation": ${correlation++}, "Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "Group size": 8, "dtype": "BFloat16", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}}`);
      }
    }
    const text = `${lines.join(',\n')},\n`;
    written += Buffer.byteLength(text);
    await write(text);
  }
  await write('  {"ph": "i", "cat": "Trace", "name": "end", "pid": 1, "tid": 1, "ts": 0, "s": "g"}\n  ],\n  "traceName": "generated"\n}\n');
  out.end();
  await once(out, 'finish');
}

const dataset = join(root, '..', 'shared', 'data', 'traces', 'hta', 'df_index_resolver.json.gz');
const gib = Number(process.argv[process.argv.indexOf('--gib') + 1] ?? 1) || 1;
console.log(`load average before: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);

const runs = [child(dataset), child(dataset), child(dataset)];
const first = runs[0];
console.log(`df_index_resolver.json.gz (54 MB JSON, ${first.events} events, ${first.kernels} kernels, ${first.collectives} collectives):`);
console.log(`  read ${runs.map((run) => run.readMs.toFixed(0)).join(', ')} ms; median ${median(runs.map((run) => run.readMs)).toFixed(0)} ms read, ${median(runs.map((run) => run.wallMs)).toFixed(0)} ms process wall; peak RSS ${median(runs.map((run) => run.maxRssMiB)).toFixed(0)} MiB`);

const big = join(tmpdir(), `aifabric-bench-trace-${process.pid}.json`);
try {
  const start = performance.now();
  await generate(big, gib * 1024 ** 3);
  const size = statSync(big).size;
  console.log(`generated ${(size / 1024 ** 3).toFixed(2)} GiB in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  const run = child(big);
  console.log(`generated trace (${run.events} events, ${run.kernels} kernels, ${run.collectives} collectives): read ${(run.readMs / 1000).toFixed(1)} s (${(size / 1e6 / (run.readMs / 1000)).toFixed(0)} MB/s), process wall ${(run.wallMs / 1000).toFixed(1)} s, peak RSS ${run.maxRssMiB.toFixed(0)} MiB`);
} finally {
  rmSync(big, { force: true });
}
console.log(`load average after: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
