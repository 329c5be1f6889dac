/**
 * Synchronous steps wait for the slowest rank: T_step = T_compute + E[max_i T_comm,i].
 * Per-rank communication time is T (1 + cv Z_i) with Z_i standard normal (OS noise, link jitter),
 * plus retransmission timeouts, which arrive as a Poisson count with the collectives' expected
 * stall time as its mean (each one costs a whole RTO to every rank).
 */
import { createRng } from '../core/rng.js';

/**
 * E[max of n standard normals], Blom's approximation Phi^-1((n - 0.375) / (n + 0.25))
 * (Blom, "Statistical Estimates and Transformed Beta-Variables", 1958); 0 for one rank.
 */
export function expectedMaxStandardNormal(n: number): number {
  if (n <= 1) return 0;
  return inverseNormalCdf((n - 0.375) / (n + 0.25));
}

/** Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9). */
export function inverseNormalCdf(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
    );
  }
  if (p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return (
      -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
    );
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

export interface StragglerInput {
  /** Exposed communication per step without timeout stalls (ms). */
  commMs: number;
  /** Expected timeout stall per step (ms), from the collectives' TCP term. */
  expectedTimeoutMs: number;
  /** One RTO (ms), the cost of each stall. */
  rtoMs: number;
  ranks: number;
  jitterCv: number;
  method: 'order-statistics' | 'monte-carlo';
  samples: number;
  seed: number;
}

export interface StragglerResult {
  /** E[max over ranks of communication] (ms). */
  expectedMaxCommMs: number;
  /** What waiting for the slowest rank adds to the mean rank's communication (ms). */
  penaltyMs: number;
  /** Jitter part of the penalty (ms); the rest is timeout stalls. */
  jitterPenaltyMs: number;
  timeoutPenaltyMs: number;
}

function poisson(mean: number, uniform: () => number): number {
  // Knuth's multiplication method: fine for the small means timeouts have.
  if (mean <= 0) return 0;
  if (mean > 30)
    return Math.max(
      0,
      Math.round(
        mean + Math.sqrt(mean) * Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform()),
      ),
    );
  const limit = Math.exp(-mean);
  let count = 0;
  let product = uniform();
  while (product > limit) {
    count++;
    product *= uniform();
  }
  return count;
}

export function stragglerPenalty(input: StragglerInput): StragglerResult {
  const sigma = input.commMs * input.jitterCv;
  if (input.method === 'order-statistics') {
    const jitter = sigma * expectedMaxStandardNormal(input.ranks);
    const timeouts = input.expectedTimeoutMs;
    return {
      expectedMaxCommMs: input.commMs + jitter + timeouts,
      penaltyMs: jitter + timeouts,
      jitterPenaltyMs: jitter,
      timeoutPenaltyMs: timeouts,
    };
  }
  const rng = createRng(input.seed);
  const stallMean = input.rtoMs > 0 ? input.expectedTimeoutMs / input.rtoMs : 0;
  let totalMax = 0;
  let totalStall = 0;
  for (let sample = 0; sample < input.samples; sample++) {
    // The max of n iid standard normals has CDF Phi(x)^n, so it is sampled exactly as Phi^-1(U^(1/n)).
    const worst = inverseNormalCdf(Math.max(Number.MIN_VALUE, rng.next()) ** (1 / input.ranks));
    const stall = poisson(stallMean, () => rng.next()) * input.rtoMs;
    totalMax += Math.max(0, input.commMs + sigma * worst);
    totalStall += stall;
  }
  const expectedMax = totalMax / input.samples;
  const timeouts = totalStall / input.samples;
  const jitter = Math.max(0, expectedMax - input.commMs);
  return {
    expectedMaxCommMs: expectedMax + timeouts,
    penaltyMs: jitter + timeouts,
    jitterPenaltyMs: jitter,
    timeoutPenaltyMs: timeouts,
  };
}
