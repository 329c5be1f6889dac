/** The results store: SQLite with versioned migrations; runs saved with `--save`, read by runs, report and serve. */
export { RunStore, CorruptRunError, saveResult, listRuns, getRun, parseRunId } from './run-store.js';
export { KNOWN_RESULT_KINDS, normaliseKind, sameKind, checkKindFilter } from './result-kinds.js';
export type { RunSummary, StoredRun, ListRunsFilter } from './run-store.js';
export { resolveDbPath, openDatabase, migrate } from './open-store.js';
export type { OpenStoreOptions, SqliteDatabase } from './open-store.js';
export { MIGRATIONS, LATEST_STORE_VERSION, STORE_APPLICATION_ID } from './migrations.js';
export type { Migration } from './migrations.js';
export { diffResults, regressionFindings, BUSBW_REGRESSION_THRESHOLD } from './diff-results.js';
export type { ResultDiff, BusbwComparison, MetricChange } from './diff-results.js';
export { listRunsResult, diffRuns, importRuns } from './runs-results.js';
export type { RunsListMetrics, RunsDiffMetrics, RunsImportMetrics, DiffedRun } from './runs-results.js';
export { runsForReport } from './report-runs.js';
export type { ReportRuns, ReportRunsSelection } from './report-runs.js';
