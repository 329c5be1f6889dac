/**
 * The `accept` result's metrics (issue 11, "Outputs"): every run with its verdict, how many runs each
 * stage used, and the ranked culprits. Shared by the judgement, attribution and localisation code
 * here and by the CLI that renders them.
 */

/** One run's verdict. `fail` and `hung` are hard failures; `slow` and `unstable` are soft ones. */
export type AcceptVerdict = 'pass' | 'slow' | 'unstable' | 'fail' | 'hung';

/** The stages of an acceptance run, in the order they run. */
export type AcceptStageName = 'preflight' | 'node' | 'pairs' | 'uplinks' | 'rails' | 'groups' | 'full';

/** The tools a run launches. */
export type AcceptTool = 'nccl-tests' | 'perftest' | 'iperf3' | 'bench-tcp';

/**
 * Unit of a run's measured and expected figure, named as the JSON contract names units
 * (ARCHITECTURE.md "Units in names"): nccl-tests and bench tcp report bus bandwidth in GB/s,
 * perftest and iperf3 a rate in Gb/s.
 */
export type AcceptFigureUnit = 'busbwGBps' | 'rateGbps';

/** One launch of one tool on one set of hosts. */
export interface AcceptRun {
  stage: AcceptStageName;
  tool: AcceptTool;
  hosts: string[];
  /** The command line that reproduces this run. */
  argv: string[];
  /** Null when the run was killed (hung) before it exited. */
  exitCode: number | null;
  wallS: number;
  /** Higher is better; null when the run produced no figure. */
  measured: number | null;
  /** The model's expectation for this fabric and shape; null when there is no model. */
  expected: number | null;
  /** Added beside `measured`/`expected` so the bare figures carry their unit. */
  unit: AcceptFigureUnit;
  /** TCP retransmissions when the tool reports them (iperf3 `-J`), else null or absent. */
  retransmits?: number | null;
  /** The rail (NIC or HCA) the run used, for per-rail runs. */
  rail?: string;
  verdict: AcceptVerdict;
}

/** How many runs one stage used. */
export interface AcceptStage {
  name: AcceptStageName;
  runs: number;
}

export type AcceptCulpritKind = 'node' | 'link' | 'rail' | 'fabric';

/** A place that the evidence blames, most likely first in `AcceptMetrics.culprits`. */
export interface AcceptCulprit {
  kind: AcceptCulpritKind;
  /** A host name (node), `a~b` or `leafN-uplink` (link), a rail name, or the cut (fabric). */
  id: string;
  severity: 'error' | 'warn';
  /** Share of all failing results that this culprit explains, in (0, 1]. */
  score: number;
  evidence: string[];
  /** The command line of the run that shows it. */
  reproduce: string;
}

export interface AcceptMetrics {
  culprits: AcceptCulprit[];
  runs: AcceptRun[];
  stages: AcceptStage[];
}
