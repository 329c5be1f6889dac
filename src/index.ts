/** The library API: every command's engine, callable without the CLI. */
export * from './core/index.js';
export { VERSION } from './core/version.js';
export * from './spec/index.js';
export * from './model/index.js';
export { runDemo, demoFiles, DEMO_FABRICS, DEMO_NODES, type DemoResults, type DemoFile } from './demo/index.js';
export { listPresets } from './spec/index.js';
export * from './parse/index.js';
export * as bench from './bench/index.js';
export * as testbed from './testbed/index.js';
export * from './sim/index.js';
export * from './check/index.js';
export { RunStore, saveResult, listRuns, getRun, diffResults, diffRuns, listRunsResult, importRuns, resolveDbPath, LATEST_STORE_VERSION, type RunSummary, type StoredRun, type ResultDiff, type RunsDiffMetrics, type RunsListMetrics, type RunsImportMetrics } from './store/index.js';
export { bandwidthCurves, type BandwidthCurve } from './result/index.js';
export { renderReport, reportResult, renderChartSvg, CHART_BUILDERS, type ReportOptions, type RenderedReport, type ReportMetrics, type ChartSpec } from './report/index.js';
export { startDashboard, type RunningDashboard } from './server/index.js';
