#!/usr/bin/env node
// Speed of the analytic model (issue 2): collective-cost and training-step evaluations per second in
// one process, and wall time of `aifabric --help` and `aifabric collective`. Run after `npm run build`:
//   node bench/model-speed.mjs
// Prints figures; never passes or fails on time (targets: >= 100,000 and >= 10,000 per second, < 0.5 s).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = fileURLToPath(new URL('..', import.meta.url));
const lib = await import(join(root, 'dist', 'index.js'));

function rate(label, fn, seconds = 2) {
  for (let i = 0; i < 1000; i++) fn(i); // warm up the JIT
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < 200; i++) fn(count++);
  }
  const elapsed = (performance.now() - start) / 1000;
  const perSecond = count / elapsed;
  console.log(`${label.padEnd(48)} ${Math.round(perSecond).toLocaleString('en-US').padStart(12)} /s`);
  return perSecond;
}

const ops = lib.COLLECTIVE_OPS;
const fabrics = lib.fabricPresets.map((preset) => preset.id);
const shapes = fabrics.map((fabric) => lib.shapeFor({ nodes: 16, gpusPerNode: 8, fabric, gpu: 'h100-sxm' }));
const collectives = rate('collective cost (auto: ring + tree x protocols)', (i) =>
  lib.estimateCollective(ops[i % ops.length], 1024 * (1 + (i % 4096)) * 64, shapes[i % shapes.length], 'auto'),
);

const loaded = lib.parseJobYaml(
  (await import('node:fs')).readFileSync(join(root, 'examples', 'jobs', 'llama3-70b-8xh100.yaml'), 'utf8'),
  'demo.yaml',
);
const jobs = [1, 2, 4, 8, 16, 32, 64, 128].flatMap((nodes) => ['tcp-100g', 'roce-400g', 'ib-ndr-400g'].map((fabric) => loaded.resolve({ fabric, nodes })));
const steps = rate('training step (order statistics)', (i) => lib.trainingStep(jobs[i % jobs.length]));

function wall(label, args, runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    execFileSync(process.execPath, [join(root, 'dist', 'cli', 'main.js'), ...args], { stdio: 'ignore' });
    times.push((performance.now() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(48)} median ${times[Math.floor(runs / 2)].toFixed(3)} s, max ${times[runs - 1].toFixed(3)} s over ${runs} runs`);
}
wall('aifabric --help', ['--help']);
wall('aifabric collective --nodes 16 (8 B..8 GiB)', ['collective', '--nodes', '16']);
wall('aifabric demo', ['demo', '--out', join((await import('node:os')).tmpdir(), 'aifabric-bench-demo')], 3);
console.log(`targets: collectives >= 100000/s (${collectives >= 1e5 ? 'met' : 'NOT met'}), training steps >= 10000/s (${steps >= 1e4 ? 'met' : 'NOT met'})`);
