/** Human text of `aifabric report`: the one line saying what was written. */
import type { ResultEnvelope } from '../../core/envelope.js';
import type { ReportMetrics } from '../../report/index.js';

export function renderReportText(result: ResultEnvelope<ReportMetrics>): string {
  const { path, results, charts, bytes } = result.metrics;
  return `wrote ${path}: ${results} result${results === 1 ? '' : 's'}, ${charts} chart${charts === 1 ? '' : 's'}, ${Math.round(bytes / 1024)} KiB\n`;
}
