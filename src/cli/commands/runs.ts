/**
 * `aifabric runs list|show|diff`: the results history. Reads the store (never creates one);
 * `diff` exits 1 when busbw fell by more than 5% at any message size, so CI can gate on it.
 */
import { Command } from '@commander-js/extra-typings';
import { emitResult, toJson } from '../emit.js';
import { positiveIntArg } from '../options.js';
import { addDbOption, addJsonOption } from '../store-options.js';

async function openStore(db: string | undefined, mustExist = true) {
  const store = await import('../../store/index.js');
  const path = store.resolveDbPath(db);
  return { store, path, runs: new store.RunStore(path, { mustExist }) };
}

function registerList(runs: Command): void {
  const list = runs
    .command('list')
    .description('list saved runs, newest first')
    .option(
      '--kind <kind>',
      'only runs of this kind (collective, plan, compare, scale, sim, bench-tcp, parse, check...; bench.tcp and bench-tcp are one kind)',
    )
    .option('--limit <n>', 'at most this many runs', positiveIntArg('--limit'));
  const withJson = addJsonOption(list, 'print the result envelope (metrics.runs[]) as JSON');
  addDbOption(withJson).action(async (options) => {
    const { store, runs: opened } = await openStore(options.db);
    const { renderRunsListText } = await import('../render/runs-text.js');
    try {
      const result = store.listRunsResult(opened, {
        ...(options.kind !== undefined ? { kind: options.kind } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      });
      await emitResult(result, { json: options.json ?? false }, renderRunsListText);
    } finally {
      opened.close();
    }
  });
}

function registerShow(runs: Command): void {
  const show = runs
    .command('show')
    .description('show one saved run')
    .argument('<id>', 'run id, from `aifabric runs list`');
  const withJson = addJsonOption(show, 'print the saved result envelope exactly as it was saved');
  addDbOption(withJson).action(async (idText, options) => {
    const { store, runs: opened } = await openStore(options.db);
    const { renderRunText } = await import('../render/runs-text.js');
    try {
      const run = opened.require(store.parseRunId(idText));
      process.stdout.write(options.json ? toJson(run.envelope) : renderRunText(run.id, run.envelope));
    } finally {
      opened.close();
    }
  });
}

function registerDiff(runs: Command): void {
  const diff = runs
    .command('diff')
    .description(
      'compare two runs of the same kind; exit 1 when busbw fell by more than 5% at any message size',
    )
    .argument('<a>', 'the baseline run id')
    .argument('<b>', 'the run to compare with it');
  const withJson = addJsonOption(diff, 'print the diff as a result envelope');
  addDbOption(withJson).action(async (aText, bText, options) => {
    const { store, runs: opened } = await openStore(options.db);
    const { renderDiffText } = await import('../render/runs-text.js');
    try {
      const result = store.diffRuns(opened, store.parseRunId(aText), store.parseRunId(bText));
      await emitResult(result, { json: options.json ?? false }, renderDiffText);
      if (result.metrics.regressions.length > 0) process.exitCode = 1;
    } finally {
      opened.close();
    }
  });
}

function registerImport(runs: Command): void {
  const importFiles = runs
    .command('import')
    .description(
      'save result JSON files (from --json or --out, e.g. produced on a cluster) into the database',
    )
    .argument('<files...>', 'result JSON files: one envelope or an array of envelopes each');
  const withJson = addJsonOption(importFiles, 'print the saved run ids as a result envelope');
  addDbOption(withJson).action(async (files, options) => {
    const { readEnvelopeRefs } = await import('../report-inputs.js');
    // Read and validate everything first: a bad file stops the import before anything is saved.
    const entries = files.flatMap((file) => readEnvelopeRefs(file));
    const { store, runs: opened } = await openStore(options.db, false);
    const { renderImportText } = await import('../render/runs-text.js');
    try {
      const result = store.importRuns(opened, files, entries);
      for (const { ref, duplicateOf } of result.metrics.skipped)
        process.stderr.write(`note: ${ref}: identical to run ${duplicateOf}, skipped\n`);
      await emitResult(result, { json: options.json ?? false }, renderImportText);
    } finally {
      opened.close();
    }
  });
}

export function registerRuns(program: Command): void {
  const runs = program
    .command('runs')
    .description('saved results: list, show, diff, import (saved with --save; --db or AIFABRIC_DB)');
  registerList(runs);
  registerShow(runs);
  registerDiff(runs);
  registerImport(runs);
}
