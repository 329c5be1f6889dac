/** Human text of `aifabric demo`: the headline split, which fabric for the job, scaling, and the files written. */
import type { DemoResults } from '../../demo/index.js';
import { renderCompareText, renderScaleText, renderSplitLines } from './plan-text.js';

export function renderDemoText(results: DemoResults, written: readonly string[]): string {
  // The headline first: how much of TCP 100G -> RoCE 400G is the faster port and how much the transport.
  return [
    results.split ? renderSplitLines([results.split]) : '',
    '\n== Which fabric for this job? (8 nodes)\n',
    renderCompareText(results.compare),
    '\n== Scaling\n',
    renderScaleText(results.scale),
    `\nwrote ${written.join(', ')}\n`,
  ].join('');
}
