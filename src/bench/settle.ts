/**
 * Untimed iterations before each timed cell, until the ranks' code has settled. A rank is a V8
 * isolate: its hot functions run interpreted, then compiled by TurboFan after hundreds of calls,
 * some recompiled when a size change sends them down another path. On the 2-core VM a 4-rank
 * 1 MiB all_reduce took 3.3, 2.1, 2.2 and 1.7 ms per iteration over its first four hundred
 * iterations and 1.1-1.5 ms from the 500th on (the machine otherwise idle; docs/PERFORMANCE.md
 * run 10), and `--trace-opt` showed compiles of 15-110 ms landing in timed iterations up to the
 * 280th. nccl-tests' 5 warm-up iterations cover a CUDA context, not a JIT: without this, `bench
 * tcp` timed V8's compiler as much as the network.
 *
 * Every rank runs the same number of iterations: after each batch the ranks sum their batch times
 * over the control channel and all decide from that same sum.
 */

/** At most this many untimed iterations per cell (1 MiB needs about 500: the budget ends it first). */
export const SETTLE_ITERS = 1000;
/** Cells after a sweep's first settle for this share of the budget: the code is compiled by then. */
export const LATER_CELL_SHARE = 0.25;
/** Each batch aims at this much time, so a cell costs about SETTLE_ITERS or budget / this round trips. */
const SETTLE_BATCH_MS = 50;

export interface SettleResult {
  iterations: number;
  /** The mean over ranks of the time spent, ms. */
  spentMs: number;
}

/**
 * Run `runOnce` untimed until SETTLE_ITERS iterations are done or `budgetMs` is spent (as the
 * ranks' mean, agreed through `meanOverRanks`), whichever comes first; nothing when budgetMs is 0.
 */
export async function settle(
  runOnce: () => Promise<void>,
  meanOverRanks: (ms: number) => Promise<number>,
  budgetMs: number,
): Promise<SettleResult> {
  let iterations = 0;
  let spentMs = 0;
  let batch = 1;
  while (budgetMs > 0 && iterations < SETTLE_ITERS && spentMs < budgetMs) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await runOnce();
    const batchMs = await meanOverRanks(performance.now() - start);
    iterations += batch;
    spentMs += batchMs;
    const perIterationMs = Math.max(batchMs / batch, 1e-3);
    const target = Math.min(SETTLE_BATCH_MS, budgetMs - spentMs);
    batch = Math.max(1, Math.min(SETTLE_ITERS - iterations, Math.floor(target / perIterationMs)));
  }
  return { iterations, spentMs };
}
