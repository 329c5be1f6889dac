/**
 * `aifabric report`: one self-contained HTML file from saved runs (`--run`, or the latest ones)
 * and/or result JSON files (`--input`, no database needed). Charts are rendered to SVG in Node.
 */
import { Command } from '@commander-js/extra-typings';
import { writeFileAtomic } from '../../core/atomic-write.js';
import type { ResultEnvelope } from '../../core/envelope.js';
import { InputError } from '../../core/errors.js';
import { emitResult } from '../emit.js';
import { positiveIntArg } from '../options.js';
import { addDbOption, addJsonOption } from '../store-options.js';
import { readEnvelopeRefs } from '../report-inputs.js';

const DEFAULT_LAST = 50;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerReport(program: Command): void {
  const command = program
    .command('report')
    .description(
      'write one self-contained HTML report (charts as inline SVG) from saved runs or result files',
    )
    .option('--run <id>', 'a saved run to include (repeat for several; default: the latest runs)', collect)
    .option('--kind <kind>', 'without --run: only the latest runs of this kind')
    .option(
      '--last <n>',
      `without --run: how many of the latest runs (default ${DEFAULT_LAST})`,
      positiveIntArg('--last'),
    )
    .option(
      '--input <file>',
      'a result JSON file (one envelope or an array) to include; repeatable; needs no database',
      collect,
    )
    // Not addOutputOptions: this --out is the HTML report, not a copy of the JSON envelope.
    .option('--out <file>', 'where to write the HTML', 'report.html')
    .option('--title <text>', 'the report title', 'aifabric report');
  const withJson = addJsonOption(command, 'print a result envelope describing the written report');
  addDbOption(withJson).action(async (options) => {
    const started = performance.now();
    const items: { envelope: ResultEnvelope; ref: string }[] = [];
    for (const file of options.input ?? []) items.push(...readEnvelopeRefs(file));
    // --input files that hold no result are a mistake, not a request for the database's latest runs.
    if (options.input !== undefined && items.length === 0 && options.run === undefined)
      throw new InputError(
        `nothing to report: ${options.input.join(', ')} hold${options.input.length === 1 ? 's' : ''} no results`,
      );
    const runIds: number[] = [];
    const warnings: string[] = [];
    if (options.run !== undefined || items.length === 0) {
      const store = await import('../../store/index.js');
      const runs = new store.RunStore(store.resolveDbPath(options.db), { mustExist: true });
      try {
        const found = store.runsForReport(runs, {
          ...(options.run !== undefined ? { ids: options.run.map((text) => store.parseRunId(text)) } : {}),
          ...(options.kind !== undefined ? { kind: options.kind } : {}),
          last: options.last ?? DEFAULT_LAST,
          onSkip: (warning) => process.stderr.write(`warning: ${warning}\n`),
        });
        items.push(...found.items);
        runIds.push(...found.runIds);
        warnings.push(...found.warnings);
      } finally {
        runs.close();
      }
    }
    const { renderReportItems, reportResult } = await import('../../report/index.js');
    const { renderReportText } = await import('../render/report-text.js');
    const report = await renderReportItems(items, { title: options.title });
    writeFileAtomic(options.out, report.html);
    const result = reportResult(report, {
      out: options.out,
      runs: runIds,
      inputs: options.input ?? [],
      results: items.length,
      wallMs: performance.now() - started,
      warnings,
    });
    await emitResult(result, { json: options.json ?? false }, renderReportText);
  });
}
