/**
 * Judgement of one run kind's results (a figure per host or per pair, higher is better) against the
 * model's expectation and against the fleet (issue 11, "Judgement"). Hard failures are passed in;
 * soft ones need two kinds of evidence at once: the figure is below a fraction of the expectation or
 * of the fleet median, AND its robust z-score is beyond a threshold, so one noisy run on a healthy
 * fleet, or a fleet that is uniformly a little under the model, is not a culprit.
 */
import { mean, median } from '../core/stats.js';
import type { AcceptVerdict } from './types.js';

/** Below 80% of the expectation (or fleet median) is slow: vendor checklists quoted in issue 11 ask for 90% of line rate, and 0.8 leaves room for the model's own error (our choice). */
export const DEFAULT_SLOW_FRACTION = 0.8;
/** Modified z-score beyond 3.5 is an outlier: Iglewicz & Hoaglin (1993), "How to Detect and Handle Outliers", ASQC; the rule as quoted at https://stats.stackexchange.com/q/339932. */
export const DEFAULT_Z_THRESHOLD = 3.5;
/** Repeats whose coefficient of variation exceeds 15% are unstable: a healthy link repeats within a few percent, so three times that is a flapping path, not noise (our choice). */
export const DEFAULT_CV_THRESHOLD = 0.15;
/** MAD scale making it estimate sigma for normal data (1/0.6745, the constant in Iglewicz & Hoaglin's M_i). */
export const MAD_TO_SIGMA = 1.4826;
/**
 * Floor on the robust spread, as a share of the fleet median. When most figures are identical the
 * MAD is zero and the z-score undefined; dividing by a tiny spread instead "blows up the statistic,
 * exactly as desired" (https://stats.stackexchange.com/q/339932); 1% of the median is small enough
 * for that yet keeps a 0.5% difference between near-identical runs from being an outlier (our choice).
 * (The mean-absolute-deviation fallback quoted there is inflated by the outliers themselves: one bad
 * host among 8, low in 7 of the 28 pairs, would hide at z = -3.2.)
 */
export const MIN_RELATIVE_SPREAD = 0.01;
/** Fewer results than this make no fleet: a z-score needs a few peers to be meaningful. */
export const MIN_FLEET = 3;

export interface JudgeOptions {
  slowFraction?: number;
  zThreshold?: number;
  cvThreshold?: number;
}

/** One result to judge: a host's or a pair's figure from one run kind. */
export interface JudgeInput {
  /** A host name or `a~b`. */
  id: string;
  /** Null when the run gave no figure. */
  measured: number | null;
  expected?: number | null;
  /** Figures of repeated runs of the same thing, for the stability test. */
  repeats?: readonly number[];
  /** Why the run failed hard (non-zero exit, #wrong > 0, missing rows, transport fallback), if it did. */
  hardFailure?: string | null;
  timedOut?: boolean;
}

export interface JudgeResult {
  id: string;
  verdict: AcceptVerdict;
  reasons: string[];
  /** Robust z-score against the fleet; null without a fleet or a figure. */
  zScore: number | null;
  fleetMedian: number | null;
  /** measured / expected, when both are known. */
  ofExpected: number | null;
  /** measured / fleet median, when both are known. */
  ofFleet: number | null;
  /** Coefficient of variation of the repeats, with at least two. */
  cv: number | null;
  /** Below slowFraction x expectation, whatever the fleet says: a fleet-wide shortfall shows here. */
  belowExpectation: boolean;
}

/** What a run reported that makes it a hard failure, whatever its figure (issue 11: "Hard failures"). */
export interface RunFacts {
  exitCode?: number | null;
  /** nccl-tests' `#wrong` count over all rows. */
  wrong?: number | null;
  /** Rows expected (sizes asked for) but absent from the output. */
  missingRows?: number | null;
  /** The transport the run should use and the one its log shows (`NET/IB` vs `NET/Socket`). */
  transport?: { expected: string; used: string } | null;
}

/** The hard failures in a run's facts as one line, or null when there are none. */
export function hardFailureOf(facts: RunFacts): string | null {
  const reasons: string[] = [];
  if (facts.exitCode !== undefined && facts.exitCode !== null && facts.exitCode !== 0)
    reasons.push(`exit code ${facts.exitCode}`);
  if (facts.wrong !== undefined && facts.wrong !== null && facts.wrong > 0)
    reasons.push(`#wrong ${facts.wrong}`);
  if (facts.missingRows !== undefined && facts.missingRows !== null && facts.missingRows > 0)
    reasons.push(`${facts.missingRows} rows missing`);
  if (facts.transport && facts.transport.used !== facts.transport.expected) {
    reasons.push(`transport ${facts.transport.used}, expected ${facts.transport.expected}`);
  }
  return reasons.length > 0 ? reasons.join('; ') : null;
}

function coefficientOfVariation(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const average = mean(values);
  if (!(average > 0)) return null;
  let squares = 0;
  for (const value of values) squares += (value - average) ** 2;
  return Math.sqrt(squares / (values.length - 1)) / average;
}

/** Robust spread: MAD x 1.4826, at least MIN_RELATIVE_SPREAD of the median. */
export function robustSpread(values: readonly number[]): number {
  const center = median(values);
  const mad = median(values.map((value) => Math.abs(value - center)));
  return Math.max(MAD_TO_SIGMA * mad, MIN_RELATIVE_SPREAD * Math.abs(center));
}

const usable = (input: JudgeInput): input is JudgeInput & { measured: number } =>
  !input.timedOut && !input.hardFailure && input.measured !== null && Number.isFinite(input.measured);

/** Judge every result of one run kind; the fleet is the results that ran to completion. */
export function judgeResults(inputs: readonly JudgeInput[], options: JudgeOptions = {}): JudgeResult[] {
  const slowFraction = options.slowFraction ?? DEFAULT_SLOW_FRACTION;
  const zThreshold = options.zThreshold ?? DEFAULT_Z_THRESHOLD;
  const cvThreshold = options.cvThreshold ?? DEFAULT_CV_THRESHOLD;
  const fleet = inputs.filter(usable).map((input) => input.measured);
  const hasFleet = fleet.length >= MIN_FLEET;
  const fleetMedian = fleet.length > 0 ? median(fleet) : null;
  const spread = hasFleet ? robustSpread(fleet) : 0;

  return inputs.map((input): JudgeResult => {
    const expected = input.expected ?? null;
    const measured = usable(input) ? input.measured : null;
    const zScore =
      measured !== null && hasFleet && fleetMedian !== null
        ? spread > 0
          ? (measured - fleetMedian) / spread
          : 0
        : null;
    const ofExpected = measured !== null && expected !== null && expected > 0 ? measured / expected : null;
    const ofFleet =
      measured !== null && fleetMedian !== null && fleetMedian > 0 ? measured / fleetMedian : null;
    const cv = coefficientOfVariation(input.repeats ?? []);
    const belowExpectation = ofExpected !== null && ofExpected < slowFraction;
    const base = { id: input.id, zScore, fleetMedian, ofExpected, ofFleet, cv, belowExpectation };

    // A run killed at its timeout also exits non-zero; "hung" is the more precise finding.
    if (input.timedOut) return { ...base, verdict: 'hung', reasons: ['timed out'] };
    if (input.hardFailure) return { ...base, verdict: 'fail', reasons: [input.hardFailure] };
    if (measured === null) return { ...base, verdict: 'fail', reasons: ['no figure measured'] };

    const belowFleet = ofFleet !== null && ofFleet < slowFraction;
    const outlier = zScore !== null && zScore < -zThreshold;
    if ((belowExpectation || belowFleet) && outlier) {
      const reasons: string[] = [];
      if (belowExpectation && ofExpected !== null)
        reasons.push(`${(ofExpected * 100).toFixed(0)}% of the expected ${expected}`);
      if (belowFleet && ofFleet !== null)
        reasons.push(`${(ofFleet * 100).toFixed(0)}% of the fleet median ${fleetMedian}`);
      reasons.push(`robust z-score ${(zScore ?? 0).toFixed(1)} below -${zThreshold}`);
      return { ...base, verdict: 'slow', reasons };
    }
    if (cv !== null && cv > cvThreshold) {
      return {
        ...base,
        verdict: 'unstable',
        reasons: [
          `repeats vary by ${(cv * 100).toFixed(0)}% (coefficient of variation above ${cvThreshold * 100}%)`,
        ],
      };
    }
    return { ...base, verdict: 'pass', reasons: [] };
  });
}
