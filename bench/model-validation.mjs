#!/usr/bin/env node
// Prediction error of the collective model against every real nccl-tests log of the corpus
// (test/fixtures/nccl-tests-corpus.json), per log and per size regime, in sample and
// leave-one-cluster-out (every fitted constant re-fitted without any log of the held-out cluster).
// Run after `npm run build`:
//   node bench/model-validation.mjs            # tables (docs/models.md reproduces them)
//   node bench/model-validation.mjs --fit      # also print the full-corpus fit for src/model/fitted.ts
//   node bench/model-validation.mjs --json     # the whole result as JSON
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const lib = await import(join(root, 'dist', 'index.js'));
const args = new Set(process.argv.slice(2));

/** Reads the corpus: each log parsed with aifabric's own nccl-tests parser, out-of-place rows. */
function loadCorpus() {
  const json = readFileSync(join(root, 'test', 'fixtures', 'nccl-tests-corpus.json'), 'utf8');
  const readLog = (file) =>
    readFileSync(file.startsWith('shared:') ? join(root, '..', 'shared', 'data', 'samples', file.slice('shared:'.length)) : join(root, 'test', 'fixtures', file), 'utf8');
  return lib.corpusFromJson(json, readLog, lib.parseNcclTests);
}

const pct = (value) => (value === null || value === undefined ? '' : `${(value * 100).toFixed(1)}%`);

const all = loadCorpus();
const logs = all.filter((log) => !log.excluded);
const started = performance.now();
const result = lib.validateModel(logs, lib.corpusPredictor, lib.FITTED_CONSTANTS);
const seconds = (performance.now() - started) / 1000;

if (args.has('--json')) {
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}

console.log(`corpus: ${logs.length} logs scored, ${result.clusters} clusters; leave-one-cluster-out re-fits: ${result.clusters} (${seconds.toFixed(1)} s)`);
for (const log of all.filter((entry) => entry.excluded)) console.log(`not scored: ${log.file} (${log.excluded})`);
console.log('');
console.log('| log | op | small (time) | mid (busbw) | large (busbw) | held out: small | mid | large |');
console.log('|---|---|---|---|---|---|---|---|');
for (const log of result.logs) {
  const e = log.errors;
  const h = log.heldOut;
  console.log(`| ${log.file.replace(/^(shared:)?nccl-tests\//, '')} | ${log.op} | ${pct(e.small)} | ${pct(e.mid)} | ${pct(e.large)} | ${pct(h.small)} | ${pct(h.mid)} | ${pct(h.large)} |`);
}
console.log('');
console.log('| regime | logs | in-sample mean | median | leave-one-cluster-out mean | median | worst (held out) |');
console.log('|---|---|---|---|---|---|---|');
for (const regime of lib.REGIMES) {
  const a = result.inSample[regime];
  const b = result.leaveOneClusterOut[regime];
  const worst = b.worst ? `${pct(b.worst.error)} ${b.worst.file.replace(/^(shared:)?nccl-tests\//, '')}` : '';
  console.log(`| ${regime} | ${a.logs} | ${pct(a.mean)} | ${pct(a.median)} | ${pct(b.mean)} | ${pct(b.median)} | ${worst} |`);
}

if (args.has('--fit')) {
  const fitted = lib.fitConstants(logs, lib.corpusPredictor, lib.FITTED_CONSTANTS, 3000);
  console.log('');
  console.log('full-corpus fit (src/model/fitted.ts FITTED_CONSTANTS):');
  console.log(JSON.stringify(fitted, null, 2));
  console.log(`objective: shipped ${lib.objective(logs, lib.corpusPredictor, lib.FITTED_CONSTANTS).toFixed(4)}, fitted ${lib.objective(logs, lib.corpusPredictor, fitted).toFixed(4)}`);
}
