/**
 * Of two runs of one check, the one to keep and the one to set aside (listed, not judged): the new
 * run wins when it did not fail and its figure is higher. A stall of the machine only ever slows a
 * run, so the better of two is the host's or the link's own figure. Used by the node and pairs stages.
 */
export function betterRun<T>(
  kept: T,
  again: T,
  figure: (run: T) => number | null,
  failed: (run: T) => boolean,
): { keep: T; aside: T } {
  return !failed(again) && (figure(again) ?? 0) > (figure(kept) ?? 0)
    ? { keep: again, aside: kept }
    : { keep: kept, aside: again };
}
