/**
 * `aifabric runs list|show|diff`: the results history. Reads the store (never creates one);
 * `diff` exits 1 when busbw fell by more than 5% at any message size, so CI can gate on it.
 */
import { Command } from '@commander-js/extra-typings';
import { makeResult } from '../../core/envelope.js';
import { emitResult, toJson } from '../emit.js';
import { positiveIntArg } from '../options.js';
import { addDbOption } from '../store-options.js';

async function openStore(db: string | undefined, mustExist = true) {
  const store = await import('../../store/index.js');
  const path = store.resolveDbPath(db);
  return { store, path, runs: new store.RunStore(path, { mustExist }) };
}

function registerList(runs: Command): void {
  addDbOption(
    runs
      .command('list')
      .description('list saved runs, newest first')
      .option('--kind <kind>', 'only runs of this kind (collective, plan, compare, scale, sim, bench-tcp, parse, check...; bench.tcp and bench-tcp are one kind)')
      .option('--limit <n>', 'at most this many runs', positiveIntArg('--limit'))
      .option('--json', 'print the result envelope (metrics.runs[]) as JSON'),
  ).action(async (options) => {
    const { store, path, runs: opened } = await openStore(options.db);
    const { renderRunsListText } = await import('./runs-text.js');
    try {
      if (options.kind !== undefined) store.checkKindFilter(options.kind, opened.kinds());
      const runs = opened.list({ ...(options.kind !== undefined ? { kind: options.kind } : {}), ...(options.limit !== undefined ? { limit: options.limit } : {}) });
      const result = makeResult('runs-list', { db: path, kind: options.kind ?? null, limit: options.limit ?? null }, { runs });
      await emitResult(result, { json: options.json ?? false }, () => renderRunsListText(runs, path));
    } finally {
      opened.close();
    }
  });
}

function registerShow(runs: Command): void {
  addDbOption(
    runs
      .command('show')
      .description('show one saved run')
      .argument('<id>', 'run id, from `aifabric runs list`')
      .option('--json', 'print the saved result envelope exactly as it was saved'),
  ).action(async (idText, options) => {
    const { store, runs: opened } = await openStore(options.db);
    const { renderRunText } = await import('./runs-text.js');
    try {
      const run = opened.require(store.parseRunId(idText));
      process.stdout.write(options.json ? toJson(run.envelope) : renderRunText(run.id, run.envelope));
    } finally {
      opened.close();
    }
  });
}

function registerDiff(runs: Command): void {
  addDbOption(
    runs
      .command('diff')
      .description('compare two runs of the same kind; exit 1 when busbw fell by more than 5% at any message size')
      .argument('<a>', 'the baseline run id')
      .argument('<b>', 'the run to compare with it')
      .option('--json', 'print the diff as a result envelope'),
  ).action(async (aText, bText, options) => {
    const { store, path, runs: opened } = await openStore(options.db);
    const { renderDiffText } = await import('./runs-text.js');
    try {
      const a = opened.require(store.parseRunId(aText));
      const b = opened.require(store.parseRunId(bText));
      const diff = store.diffResults(a.envelope, b.envelope);
      const summary = (run: typeof a) => ({ id: run.id, kind: run.kind, createdAt: run.createdAt, label: run.label });
      const result = makeResult('runs-diff', { db: path, a: a.id, b: b.id }, { a: summary(a), b: summary(b), ...diff }, { findings: store.regressionFindings(diff) });
      await emitResult(result, { json: options.json ?? false }, () => renderDiffText(diff, a, b));
      if (diff.regressions.length > 0) process.exitCode = 1;
    } finally {
      opened.close();
    }
  });
}

function registerImport(runs: Command): void {
  addDbOption(
    runs
      .command('import')
      .description('save result JSON files (from --json or --out, e.g. produced on a cluster) into the database')
      .argument('<files...>', 'result JSON files: one envelope or an array of envelopes each')
      .option('--json', 'print the saved run ids as a result envelope'),
  ).action(async (files, options) => {
    const { readEnvelopeRefs } = await import('./report-inputs.js');
    // Read and validate everything first: a bad file stops the import before anything is saved.
    const entries = files.flatMap((file) => readEnvelopeRefs(file));
    const { path, runs: opened } = await openStore(options.db, false);
    try {
      const saved: { id: number; kind: string; createdAt: string }[] = [];
      const skipped: { ref: string; duplicateOf: number }[] = [];
      for (const { envelope, ref } of entries) {
        // An exact copy (same JSON) of a saved run, or of one earlier in this import, is not saved twice.
        const duplicateOf = opened.findIdentical(envelope);
        if (duplicateOf !== undefined) {
          skipped.push({ ref, duplicateOf });
          process.stderr.write(`note: ${ref}: identical to run ${duplicateOf}, skipped\n`);
          continue;
        }
        saved.push({ id: opened.save(envelope), kind: envelope.kind, createdAt: envelope.createdAt });
      }
      const result = makeResult('runs-import', { db: path, files }, { runs: saved, skipped });
      await emitResult(result, { json: options.json ?? false }, () => saved.map((run) => `saved ${run.kind} result as run ${run.id} in ${path}\n`).join('') + (saved.length === 0 ? `nothing new to save in ${path}\n` : ''));
    } finally {
      opened.close();
    }
  });
}

export function registerRuns(program: Command): void {
  const runs = program.command('runs').description('saved results: list, show, diff, import (saved with --save; --db or AIFABRIC_DB)');
  registerList(runs);
  registerShow(runs);
  registerDiff(runs);
  registerImport(runs);
}
