/**
 * One self-contained HTML report from result envelopes: the runs it covers, every chart the results
 * support (as inline SVG rendered in Node), the findings of checks, and each run's inputs and
 * metrics as tables. It needs no database: the demo hands it the envelopes it just produced.
 */
import type { ResultEnvelope } from '../core/envelope.js';
import { VERSION } from '../core/version.js';
import { CHART_BUILDERS, renderChartSvg, type ChartSpec } from './charts/index.js';
import type { ReportItem } from './data/report-item.js';
import { normaliseEnvelope } from './data/normalise-envelope.js';
import { asRecord, describeRun, text } from '../result/index.js';
import { renderFindingsTable } from './findings-table.js';
import { escapeHtml, page } from './html.js';
import { renderValueTables } from './metrics-table.js';

const NCCL_TESTS_PERFORMANCE = 'https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md';

export interface ReportOptions {
  title?: string;
  /** A reference per envelope (`#12`); defaults to `result 1`, `result 2`... */
  refs?: readonly string[];
  /** Shown in the header; pass null to leave it out (reproducible output). Defaults to now. */
  generatedAt?: Date | null;
  /** Extra header HTML (the dashboard's navigation). */
  nav?: string;
  /** Link target for a run's reference (the dashboard links to /runs/ID). */
  runHref?: (item: ReportItem) => string | undefined;
}

/** A rendered report: the HTML document and how many charts it draws (charts that failed to render are not counted). */
export interface RenderedReport {
  html: string;
  charts: number;
}

export interface RenderedChart {
  chart: ChartSpec;
  svg: string;
}

/** Every chart the items support, in builder order. A chart that fails to render becomes a warning, never a failed report. */
export async function renderCharts(
  items: readonly ReportItem[],
): Promise<{ charts: RenderedChart[]; warnings: string[] }> {
  const specs = CHART_BUILDERS.flatMap((build) => build(items));
  const warnings: string[] = [];
  const charts: RenderedChart[] = [];
  // Sequential on purpose: vega views are CPU-bound, and parallel renders only interleave them.
  for (const chart of specs) {
    try {
      charts.push({ chart, svg: await renderChartSvg(chart.spec) });
    } catch (error) {
      warnings.push(
        `chart "${chart.title}" could not be drawn: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { charts, warnings };
}

function figure({ chart, svg }: RenderedChart): string {
  const caption = chart.caption ? `<span class="muted">${escapeHtml(chart.caption)}</span>` : '';
  return `<figure class="chart" id="${escapeHtml(chart.id)}">
<figcaption><strong>${escapeHtml(chart.title)}</strong>${caption}</figcaption>
${svg}
</figure>`;
}

function anchor(item: ReportItem): string {
  return `run-${item.ref
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()}`;
}

function runsTable(items: readonly ReportItem[], runHref: ReportOptions['runHref']): string {
  const rows = items
    .map((item) => {
      const href = runHref?.(item) ?? `#${anchor(item)}`;
      const tool = item.envelope.tool;
      return `<tr><td><a href="${escapeHtml(href)}">${escapeHtml(item.ref)}</a></td><td>${escapeHtml(item.envelope.kind)}</td><td>${escapeHtml(String(item.envelope.createdAt))}</td><td>${escapeHtml(describeRun(item.envelope as unknown as Record<string, unknown>))}</td><td>${escapeHtml(`${tool?.name ?? ''} ${tool?.version ?? ''}`.trim())}</td></tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table class="runs">\n<thead><tr><th>run</th><th>kind</th><th>created</th><th>inputs</th><th>tool</th></tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table></div>`;
}

function runSection(item: ReportItem): string {
  const { envelope } = item;
  const parts = [
    `<section class="run" id="${anchor(item)}">`,
    `<h3>${escapeHtml(item.ref)} · ${escapeHtml(envelope.kind)}</h3>`,
  ];
  parts.push(
    `<p class="muted">created ${escapeHtml(String(envelope.createdAt))}${text(asRecord(envelope.inputs).op) ? ` · ${escapeHtml(String(asRecord(envelope.inputs).op))}` : ''}</p>`,
  );
  if (envelope.warnings && envelope.warnings.length > 0) {
    parts.push(
      `<ul class="warnings">${envelope.warnings.map((warning) => `<li>${escapeHtml(String(warning))}</li>`).join('')}</ul>`,
    );
  }
  // Findings have their own section above; a check that found nothing says so here.
  if (envelope.findings && envelope.findings.length === 0)
    parts.push('<h4>Findings</h4>', renderFindingsTable([]));
  parts.push('<h4>Inputs</h4>', renderValueTables(envelope.inputs) || '<p class="muted">none</p>');
  parts.push('<h4>Metrics</h4>', renderValueTables(envelope.metrics) || '<p class="muted">none</p>');
  parts.push('</section>');
  return parts.join('\n');
}

/** The report body (no page shell): what the dashboard embeds under its own navigation. */
export async function renderReportBody(
  given: readonly ReportItem[],
  options: Pick<ReportOptions, 'runHref'> = {},
): Promise<string> {
  return (await renderBody(given, options)).body;
}

async function renderBody(
  given: readonly ReportItem[],
  options: Pick<ReportOptions, 'runHref'>,
): Promise<{ body: string; charts: number }> {
  const items = given.map((item) => ({ ...item, envelope: normaliseEnvelope(item.envelope) }));
  const { charts, warnings } = await renderCharts(items);
  const sections: string[] = [];
  sections.push(
    `<h2>Runs</h2>\n${items.length === 0 ? '<p class="muted">No results.</p>' : runsTable(items, options.runHref)}`,
  );
  if (warnings.length > 0)
    sections.push(
      `<ul class="warnings">${warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join('')}</ul>`,
    );
  if (charts.length > 0)
    sections.push(`<h2>Charts</h2>\n<div class="charts">\n${charts.map(figure).join('\n')}\n</div>`);
  const checks = items.filter((item) => item.envelope.findings && item.envelope.findings.length > 0);
  if (checks.length > 0) {
    sections.push(
      `<h2>Findings</h2>\n${checks.map((item) => `<h3>${escapeHtml(item.ref)} · ${escapeHtml(item.envelope.kind)}</h3>\n${renderFindingsTable(item.envelope.findings ?? [])}`).join('\n')}`,
    );
  }
  if (items.length > 0) sections.push(`<h2>Details</h2>\n${items.map(runSection).join('\n')}`);
  sections.push(
    `<footer class="muted"><p>busbw and algbw follow nccl-tests' definitions (<a href="${NCCL_TESTS_PERFORMANCE}">nccl-tests doc/PERFORMANCE.md</a>); GB = 10<sup>9</sup> bytes, message sizes in powers of 1024.</p></footer>`,
  );
  return { body: sections.join('\n'), charts: charts.length };
}

export async function renderReportItems(
  given: readonly ReportItem[],
  options: ReportOptions = {},
): Promise<RenderedReport> {
  const items = given.map((item) => ({ ...item, envelope: normaliseEnvelope(item.envelope) }));
  const generatedAt = options.generatedAt === undefined ? new Date() : options.generatedAt;
  const kinds = [...new Set(items.map((item) => item.envelope.kind))].join(', ');
  const subtitle = [
    `${items.length} result${items.length === 1 ? '' : 's'}${kinds ? ` (${kinds})` : ''}`,
    `aifabric ${VERSION}`,
    generatedAt ? `generated ${generatedAt.toISOString()}` : '',
  ]
    .filter((part) => part !== '')
    .join(' · ');
  const { body, charts } = await renderBody(items, options);
  return {
    html: page(
      {
        title: options.title ?? 'aifabric report',
        subtitle,
        ...(options.nav !== undefined ? { nav: options.nav } : {}),
      },
      body,
    ),
    charts,
  };
}

/** The library entry point: envelopes in, one self-contained HTML document (and its chart count) out. */
export async function renderReport(
  envelopes: readonly ResultEnvelope<unknown>[],
  options: ReportOptions = {},
): Promise<RenderedReport> {
  return renderReportItems(
    envelopes.map((envelope, index) => ({ envelope, ref: options.refs?.[index] ?? `result ${index + 1}` })),
    options,
  );
}
