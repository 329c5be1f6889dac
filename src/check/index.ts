/** The check room: collectors (capture folder, live host), the rule families, the engine and its outputs. */
export { runCheck, hasErrors, type CheckOptions, type CheckMetrics, type CheckResult } from './run-check.js';
export { collectFromDir, type CollectedHosts } from './collect/from-dir.js';
export { collectLive, type LiveOptions, type LiveCollection } from './collect/live.js';
export { recogniseText } from './collect/recognise.js';
export { toJunitXml } from './junit.js';
export { ruleFamilies } from './rules/index.js';
// The SONiC config_db and mlnx_qos parsers (and their facts types) are the parse room's: kinds `sonic-config-db`, `mlnx-qos`.
export type { Capture, CaptureKind, CheckFinding, HostCaptures, RuleFamily, RuleFamilyId } from './types.js';
