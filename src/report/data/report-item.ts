/** One result as the report sees it: the envelope and a short reference people can quote (`#12`). */
import type { ResultEnvelope } from '../../core/envelope.js';
import { normaliseEnvelope } from './normalise-envelope.js';

export interface ReportItem {
  envelope: ResultEnvelope<unknown>;
  /** `#12` for a stored run, `result 3` for an envelope handed to renderReport directly. */
  ref: string;
}

export function toReportItems(
  envelopes: readonly ResultEnvelope<unknown>[],
  refs?: readonly string[],
): ReportItem[] {
  return envelopes.map((envelope, index) => ({
    envelope: normaliseEnvelope(envelope),
    ref: refs?.[index] ?? `result ${index + 1}`,
  }));
}
