/** The envelope of `aifabric report`: where the HTML went, what it covers, and how many charts it draws. */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import type { RenderedReport } from './render-report.js';

export interface ReportMetrics {
  path: string;
  /** Results in the report. */
  results: number;
  charts: number;
  bytes: number;
}

export interface ReportResultInputs {
  /** Where the HTML was written. */
  out: string;
  /** The saved runs read (empty when every result came from files). */
  runs: readonly number[];
  /** The result JSON files read. */
  inputs: readonly string[];
  results: number;
  /** Wall-clock time of the whole command (goes into `timing`, never into metrics). */
  wallMs: number;
  /** Runs skipped on the way (a damaged row among the latest runs). */
  warnings?: readonly string[];
}

export function reportResult(
  report: RenderedReport,
  given: ReportResultInputs,
): ResultEnvelope<ReportMetrics> {
  return makeResult(
    'report',
    { out: given.out, runs: [...given.runs], inputs: [...given.inputs] },
    { path: given.out, results: given.results, charts: report.charts, bytes: Buffer.byteLength(report.html) },
    { timing: { wallMs: given.wallMs }, warnings: [...(given.warnings ?? [])] },
  );
}
