/**
 * Simulated time is an integer number of PICOSECONDS held in a JS number (exact up to 2^53 ps,
 * about 2.5 simulated hours). Picoseconds, not nanoseconds, because one byte at 100 Gb/s lasts
 * 80 ps and at 400 Gb/s 20 ps: nanosecond ticks would round every serialisation time.
 */
export const PS_PER_NS = 1_000;
export const PS_PER_US = 1_000_000;
export const PS_PER_S = 1_000_000_000_000;

export const nsToPs = (ns: number): number => Math.round(ns * PS_PER_NS);
export const secondsToPs = (seconds: number): number => Math.round(seconds * PS_PER_S);
export const psToUs = (ps: number): number => ps / PS_PER_US;
export const psToSeconds = (ps: number): number => ps / PS_PER_S;

/** Time to serialise `bytes` at `rateBps`, rounded up to a whole picosecond. */
export function serializationPs(bytes: number, rateBps: number): number {
  return Math.ceil((bytes * 8 * PS_PER_S) / rateBps);
}
