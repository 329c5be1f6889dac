/**
 * The envelopes of `aifabric runs list|diff|import`, built from an opened store: `diffRuns` returns
 * the diff with one `busbw-regression` finding per message size that fell past the threshold.
 * Nothing here prints; what is worth telling on the way (a duplicate skipped) is in the metrics.
 */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { diffResults, regressionFindings, type ResultDiff } from './diff-results.js';
import { checkKindFilter } from './result-kinds.js';
import type { RunStore, RunSummary, StoredRun } from './run-store.js';

export interface RunsListMetrics {
  runs: RunSummary[];
}

/** A run as `runs diff` names it: its id, kind, time and label (not the whole envelope). */
export interface DiffedRun {
  id: number;
  kind: string;
  createdAt: string;
  label: string;
}

export type RunsDiffMetrics = { a: DiffedRun; b: DiffedRun } & ResultDiff;

export interface RunsImportMetrics {
  runs: { id: number; kind: string; createdAt: string }[];
  /** Envelopes identical (same JSON) to a saved run, or to one earlier in the same import: not saved twice. */
  skipped: { ref: string; duplicateOf: number }[];
}

/** `runs list`: saved runs, newest first; an unknown `kind` filter is bad usage (see checkKindFilter). */
export function listRunsResult(
  store: RunStore,
  filter: { kind?: string; limit?: number } = {},
): ResultEnvelope<RunsListMetrics> {
  if (filter.kind !== undefined) checkKindFilter(filter.kind, store.kinds());
  const runs = store.list({
    ...(filter.kind !== undefined ? { kind: filter.kind } : {}),
    ...(filter.limit !== undefined ? { limit: filter.limit } : {}),
  });
  return makeResult(
    'runs-list',
    { db: store.path, kind: filter.kind ?? null, limit: filter.limit ?? null },
    { runs },
  );
}

const summary = (run: StoredRun): DiffedRun => ({
  id: run.id,
  kind: run.kind,
  createdAt: run.createdAt,
  label: run.label,
});

/** `runs diff A B`: the two runs compared, with a `busbw-regression` error finding per size where busbw fell past the threshold. */
export function diffRuns(store: RunStore, aId: number, bId: number): ResultEnvelope<RunsDiffMetrics> {
  const a = store.require(aId);
  const b = store.require(bId);
  const diff = diffResults(a.envelope, b.envelope);
  return makeResult(
    'runs-diff',
    { db: store.path, a: a.id, b: b.id },
    { a: summary(a), b: summary(b), ...diff },
    { findings: regressionFindings(diff) },
  );
}

/** `runs import`: saves each envelope unless an identical one is already saved; `files` are recorded as the inputs. */
export function importRuns(
  store: RunStore,
  files: readonly string[],
  entries: readonly { envelope: ResultEnvelope; ref: string }[],
): ResultEnvelope<RunsImportMetrics> {
  const runs: RunsImportMetrics['runs'] = [];
  const skipped: RunsImportMetrics['skipped'] = [];
  for (const { envelope, ref } of entries) {
    const duplicateOf = store.findIdentical(envelope);
    if (duplicateOf !== undefined) {
      skipped.push({ ref, duplicateOf });
      continue;
    }
    runs.push({ id: store.save(envelope), kind: envelope.kind, createdAt: envelope.createdAt });
  }
  return makeResult('runs-import', { db: store.path, files: [...files] }, { runs, skipped });
}
