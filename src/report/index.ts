/** The report: chart specs (vega-lite) rendered to SVG in Node, assembled into one self-contained HTML file. */
export { renderReport, renderReportItems, renderReportBody, renderCharts } from './render-report.js';
export type { ReportOptions, RenderedChart, RenderedReport } from './render-report.js';
export { reportResult } from './report-result.js';
export type { ReportMetrics, ReportResultInputs } from './report-result.js';
export { toReportItems } from './data/report-item.js';
export type { ReportItem } from './data/report-item.js';
export { safeText, normaliseEnvelope } from './data/normalise-envelope.js';
export { CHART_BUILDERS, renderChartSvg } from './charts/index.js';
export type { ChartSpec, ChartBuilder } from './charts/index.js';
export { renderFindingsTable } from './findings-table.js';
export { renderValueTables } from './metrics-table.js';
export { escapeHtml, formatNumber, formatBytes, page } from './html.js';
