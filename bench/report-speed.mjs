#!/usr/bin/env node
// Report generation and CLI start-up figures (issue 6): prints a Markdown table for docs/PERFORMANCE.md.
// Targets: `aifabric report` for the demo's results under 3 s wall; `aifabric --help` under 0.5 s.
// Never pass/fail: it measures and prints. Needs `npm run build` first.
// Usage: node bench/report-speed.mjs [--runs N]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(cli)) {
  console.error('bench/report-speed: run `npm run build` first');
  process.exit(2);
}
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 7;
const work = mkdtempSync(join(tmpdir(), 'aifabric-report-bench-'));

function wallSeconds(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, AIFABRIC_DB: join(work, 'unused.db') } });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return seconds;
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}

const fmt = (seconds) => seconds.toFixed(3);

// The demo's own results, as `aifabric demo` writes them.
const demoDir = join(work, 'demo');
wallSeconds([cli, 'demo', '--out', demoDir]);
const demoFiles = readdirSync(demoDir).filter((file) => file.endsWith('.json')).map((file) => join(demoDir, file));
// Every chart type at once: the report tests' fixtures (every kind, a check's findings, a real sim run).
const fixtureDir = join(root, 'test', 'report', 'fixtures');
const fixtureFiles = readdirSync(fixtureDir).filter((file) => file.endsWith('.json')).map((file) => join(fixtureDir, file));

const rows = [];
for (const [name, files] of [['demo results', demoFiles], ['all chart types (test fixtures)', fixtureFiles]]) {
  const out = join(work, 'report.html');
  const samples = Array.from({ length: runs }, () => wallSeconds([cli, 'report', ...files.flatMap((file) => ['--input', file]), '--out', out]));
  rows.push([`\`aifabric report --input ...\` (${name}, ${files.length} files), process wall`, summary(samples)]);
}

// In process: the first report pays for importing vega and vega-lite; later ones do not.
const { renderReport } = await import(pathToFileURL(join(root, 'dist', 'report', 'index.js')).href);
const { readFileSync } = await import('node:fs');
const demoEnvelopes = demoFiles.flatMap((file) => [JSON.parse(readFileSync(file, 'utf8'))].flat());
let started = performance.now();
await renderReport(demoEnvelopes);
const cold = (performance.now() - started) / 1000;
const warm = [];
for (let index = 0; index < runs; index += 1) {
  started = performance.now();
  await renderReport(demoEnvelopes);
  warm.push((performance.now() - started) / 1000);
}
rows.push(['`renderReport(demo results)` in process, first call (imports vega)', { median: cold, min: cold, max: cold }]);
rows.push(['`renderReport(demo results)` in process, later calls', summary(warm)]);

rows.push(['`aifabric --help`, process wall', summary(Array.from({ length: runs * 2 }, () => wallSeconds([cli, '--help'])))]);
rows.push(['`node -e ""` (Node start-up alone, for reference)', summary(Array.from({ length: runs * 2 }, () => wallSeconds(['-e', ''])))]);

console.log(`Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${runs} runs per figure (help: ${runs * 2})\n`);
console.log('| what | median s | min s | max s |');
console.log('|---|---|---|---|');
for (const [what, { median, min, max }] of rows) console.log(`| ${what} | ${fmt(median)} | ${fmt(min)} | ${fmt(max)} |`);
rmSync(work, { recursive: true, force: true });
