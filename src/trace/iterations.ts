/**
 * Per-iteration terms of the step-time model (T_step = T_compute + max over ranks of T_comm), one
 * ProfilerStep window at a time on each rank: compute is the union of non-NCCL kernel busy time
 * inside the window, communication the union of NCCL kernel time inside it, and exposed
 * communication the part of that with no compute kernel running beside it.
 */
import type { RankedFacts } from './ranks.js';
import type { TraceIteration } from './types.js';
import { clipIntervals, intervalLength, mergeIntervals, subtractIntervals } from './intervals.js';

export interface RankBusy {
  rank: number;
  /** Clock shift of its host. */
  offsetUs: number;
  compute: number[];
  comm: number[];
}

/** A rank's compute and NCCL busy time, merged, in its own clock. */
export function rankBusy(r: RankedFacts, offsetUs: number): RankBusy {
  const comm: number[] = [];
  for (const c of r.facts.collectives)
    if (Number.isFinite(c.durUs)) comm.push(c.startUs, c.startUs + c.durUs);
  return { rank: r.rank, offsetUs, compute: mergeIntervals(r.facts.computeBusy), comm: mergeIntervals(comm) };
}

export function iterationTerms(
  ranks: readonly RankedFacts[],
  busy: ReadonlyMap<number, RankBusy>,
  keep: (step: number) => boolean,
): TraceIteration[] {
  const steps = new Map<number, TraceIteration>();
  for (const r of ranks) {
    const b = busy.get(r.rank)!;
    for (const s of r.facts.steps) {
      if (!keep(s.step)) continue;
      let it = steps.get(s.step);
      if (!it) {
        it = {
          step: s.step,
          ranks: [],
          stepUs: [],
          computeUs: [],
          exposedCommUs: [],
          commUs: [],
          maxComputeUs: 0,
          maxCommUs: 0,
          maxStepUs: 0,
        };
        steps.set(s.step, it);
      }
      if (it.ranks.includes(r.rank)) continue;
      const compute = clipIntervals(b.compute, s.startUs, s.endUs);
      const comm = clipIntervals(b.comm, s.startUs, s.endUs);
      it.ranks.push(r.rank);
      it.stepUs.push(s.endUs - s.startUs);
      it.computeUs.push(intervalLength(compute));
      it.commUs.push(intervalLength(comm));
      it.exposedCommUs.push(intervalLength(subtractIntervals(comm, compute)));
    }
  }
  const out = [...steps.values()].sort((a, b) => a.step - b.step);
  for (const it of out) {
    it.maxComputeUs = Math.max(...it.computeUs);
    it.maxCommUs = Math.max(...it.commUs);
    it.maxStepUs = Math.max(...it.stepUs);
  }
  return out;
}
