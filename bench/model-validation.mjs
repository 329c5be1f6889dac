#!/usr/bin/env node
// Prediction error of the collective model against every real nccl-tests log of the corpus
// (test/fixtures/nccl-tests-corpus.json), per log and per size regime, in sample and
// leave-one-cluster-out (every fitted constant re-fitted without any log of the held-out cluster).
// Run after `npm run build`:
//   node bench/model-validation.mjs            # tables (docs/models.md reproduces them)
//   node bench/model-validation.mjs --fit      # also print the full-corpus fit for src/model/fitted.ts
//   node bench/model-validation.mjs --json     # the whole result as JSON
// It replaces bench/model-calibration.mjs: the published points it printed follow the corpus tables.
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

const pct = lib.percentCell;

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
for (const log of logs.filter((entry) => entry.transients))
  for (const row of log.transients)
    console.log(`transient row not scored: ${log.file} ${row.sizeBytes} B (out-of-place ${row.outOfPlaceUs} us, in-place ${row.inPlaceUs} us)`);
console.log('');
console.log(lib.LOG_TABLE_HEADER);
console.log('|---|---|---|---|---|---|---|---|');
for (const log of result.logs) console.log(lib.logTableRow(log));
console.log('');
console.log('| regime | logs | in-sample mean | median | leave-one-cluster-out mean | median | worst (held out) |');
console.log('|---|---|---|---|---|---|---|');
for (const regime of lib.REGIMES) {
  const a = result.inSample[regime];
  const b = result.leaveOneClusterOut[regime];
  const worst = b.worst ? `${pct(b.worst.error)} ${lib.shortLogName(b.worst.file)}` : '';
  console.log(`| ${regime} | ${a.logs} | ${pct(a.mean)} | ${pct(a.median)} | ${pct(b.mean)} | ${pct(b.median)} | ${worst} |`);
}

// Published large-message points (shared/data/reference-points.md), held by test/model/calibration.test.ts.
const points = [
  { setup: '1 x EDR 100G IB per node, 4 x 8 GPUs', input: { nodes: 4, gpusPerNode: 8, nicsPerNode: 1, fabric: 'ib-edr-100g', gpu: 'a100-40gb' }, measured: 12.2, source: 'nccl-tests issue 29' },
  { setup: '8 x HDR 200G per node (24 GB/s per NIC rule)', input: { nodes: 4, gpusPerNode: 8, nicsPerNode: 8, fabric: 'ib-hdr-200g', gpu: 'a100-80gb' }, measured: 192, source: 'nccl-tests issue 119' },
  { setup: '4 x NDR 400G per H100 node (46-49 GB/s per NIC rule)', input: { nodes: 8, gpusPerNode: 8, nicsPerNode: 4, fabric: 'ib-ndr-400g', gpu: 'h100-sxm' }, measured: 4 * 47.5, source: 'nccl-tests issue 119 (midpoint)' },
  { setup: '8 x A100 in one node (NVLink)', input: { nodes: 1, gpusPerNode: 8, fabric: 'ib-hdr-200g', gpu: 'a100-40gb' }, measured: 230, source: 'superbench DGX A100 fixtures (226-233)' },
  { setup: '8 x H100 in one node, ring (NVLink)', input: { nodes: 1, gpusPerNode: 8, fabric: 'ib-ndr-400g', gpu: 'h100-sxm', algo: 'ring' }, measured: 370, source: 'nccl-tests issue 212 (maintainer)' },
  { setup: '2 x 8 A100, 16 x 100G RoCE per node, 8 GiB', input: { nodes: 2, gpusPerNode: 8, nicsPerNode: 16, fabric: 'roce-100g', gpu: 'a100-40gb' }, size: 8 * 1024 ** 3, measured: 189.6, source: 'OCI sample log' },
  { setup: '2 x 8 A100, 16 x 100G RoCE per node, 1 GiB', input: { nodes: 2, gpusPerNode: 8, nicsPerNode: 16, fabric: 'roce-100g', gpu: 'a100-40gb' }, size: 1024 ** 3, measured: 184.92, source: 'OCI sample log' },
  { setup: '4 x 8 GPUs, NCCL over TCP 100G, 1 NIC per node', input: { nodes: 4, gpusPerNode: 8, nicsPerNode: 1, fabric: 'tcp-100g', gpu: 'a100-40gb' }, measured: 5, source: 'nccl issue 450 (4-6 band)' },
];

console.log('');
console.log('| published point | measured busbw GB/s | predicted GB/s | error | source |');
console.log('|---|---|---|---|---|');
for (const point of points) {
  const predicted = point.size
    ? lib.predictCollective({ op: 'all_reduce', ...point.input, sizeBytes: point.size }).busbwGBps
    : lib.predictBusbwPlateauGBps({ op: 'all_reduce', ...point.input });
  const error = (predicted - point.measured) / point.measured;
  console.log(`| ${point.setup} | ${point.measured.toFixed(2)} | ${predicted.toFixed(2)} | ${(error * 100).toFixed(1)}% | ${point.source} |`);
}

if (args.has('--fit')) {
  const fitted = lib.fitConstants(logs, lib.corpusPredictor, lib.FITTED_CONSTANTS, 3000);
  console.log('');
  console.log('full-corpus fit (src/model/fitted.ts FITTED_CONSTANTS):');
  console.log(JSON.stringify(fitted, null, 2));
  console.log(`objective: shipped ${lib.objective(logs, lib.corpusPredictor, lib.FITTED_CONSTANTS).toFixed(4)}, fitted ${lib.objective(logs, lib.corpusPredictor, fitted).toFixed(4)}`);
}
