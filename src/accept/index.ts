/**
 * The accept room: the pure core of `aifabric accept` (issue 11). Host lists and host files, pair
 * schedules, judgement of results, attribution of culprits and group-testing localisation; the
 * launchers, tool adapters and CLI build on these.
 */
export { expandHostlist, MAX_HOSTLIST_HOSTS } from './hostlist.js';
export { parseHostfile, type HostfileEntry } from './hostfile.js';
export { circlePairings, randomPairings, type HostPair, type PairRound } from './pairings.js';
export {
  judgeResults,
  hardFailureOf,
  robustSpread,
  DEFAULT_SLOW_FRACTION,
  DEFAULT_Z_THRESHOLD,
  DEFAULT_CV_THRESHOLD,
  MAD_TO_SIGMA,
  MIN_RELATIVE_SPREAD,
  MIN_FLEET,
  type JudgeInput,
  type JudgeOptions,
  type JudgeResult,
  type RunFacts,
} from './judge.js';
export {
  attributeCulprits,
  formatArgv,
  type AttributeInput,
  type HostOutcome,
  type PairOutcome,
} from './attribute.js';
export {
  localise,
  singleFaultRunBound,
  type GroupRunner,
  type GroupVerdict,
  type LocaliseOptions,
  type LocaliseResult,
  type LocaliseTrailEntry,
} from './localise.js';
export { LOSSY_RETRANSMITS_PER_MB } from './pairs-stage.js';
export { interfaceMtus } from './preflight-stage.js';
export {
  runAcceptance,
  type AcceptExpectation,
  type AcceptHost,
  type AcceptLauncher,
  type AcceptOptions,
  type LaunchResult,
} from './engine.js';
export { testbedLauncher } from './testbed-launcher.js';
export { launcherArgv, launcherProblem, remoteLauncher, type RemoteLauncherKind } from './launchers.js';
export { readBenchTcpJson, readIperf3Json, TCP_GOODPUT_1500 } from './tools.js';
export type {
  AcceptCulprit,
  AcceptCulpritKind,
  AcceptFigureUnit,
  AcceptMetrics,
  AcceptRun,
  AcceptStage,
  AcceptStageName,
  AcceptTool,
  AcceptVerdict,
} from './types.js';
