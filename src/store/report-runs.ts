/**
 * The saved runs a report covers: the ones asked for by id, or the latest (of one kind). Among the
 * latest, a damaged row is skipped with a warning so one bad row cannot take a report down; a run
 * asked for by id that is damaged still fails.
 */
import type { ResultEnvelope } from '../core/envelope.js';
import { InputError } from '../core/errors.js';
import { checkKindFilter } from './result-kinds.js';
import { CorruptRunError, type RunStore } from './run-store.js';

export interface ReportRunsSelection {
  /** These runs, in this order; without them, the latest `last` runs (of `kind`), oldest first. */
  ids?: readonly number[];
  kind?: string;
  last: number;
  /** Told of each damaged run as it is skipped (before an error for the whole selection, if one follows). */
  onSkip?: (warning: string) => void;
}

export interface ReportRuns {
  items: { envelope: ResultEnvelope; ref: string }[];
  runIds: number[];
  /** One per damaged run skipped. */
  warnings: string[];
}

export function runsForReport(store: RunStore, selection: ReportRunsSelection): ReportRuns {
  if (selection.kind !== undefined) checkKindFilter(selection.kind, store.kinds());
  const latest = selection.ids === undefined;
  const ids =
    selection.ids ??
    store
      .list({ ...(selection.kind !== undefined ? { kind: selection.kind } : {}), limit: selection.last })
      .map((run) => run.id)
      .reverse();
  if (ids.length === 0)
    throw new InputError(
      `no runs${selection.kind !== undefined ? ` of kind ${selection.kind}` : ''} in ${store.path} (save results with --save)`,
    );
  const found: ReportRuns = { items: [], runIds: [], warnings: [] };
  for (const id of ids) {
    let envelope: ResultEnvelope;
    try {
      envelope = store.require(id).envelope;
    } catch (error) {
      if (!latest || !(error instanceof CorruptRunError)) throw error;
      const warning = `${error.message}; skipped`;
      found.warnings.push(warning);
      selection.onSkip?.(warning);
      continue;
    }
    found.items.push({ envelope, ref: `#${id}` });
    found.runIds.push(id);
  }
  if (found.items.length === 0)
    throw new InputError(`nothing to report: every run read from ${store.path} is corrupt`);
  return found;
}
