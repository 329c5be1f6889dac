/**
 * Defensive readers for envelopes of any shape: the store and the report read results from older or
 * newer engines, and hand-edited JSON, without crashing, so every field is checked before it is used.
 */
export type UnknownRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asRecord(value: unknown): UnknownRecord {
  return isRecord(value) ? value : {};
}

/** A finite number, or undefined (NaN, Infinity, strings and nulls are not plottable). */
export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function records(value: unknown): UnknownRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** nccl-tests names (`all_reduce_perf`), our names (`all_reduce`) and loose ones (`allreduce`) to one key. */
export function normaliseOp(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const compact = name.toLowerCase().replace(/_perf$/, '').replace(/[^a-z]/g, '');
  const known: Record<string, string> = {
    allreduce: 'all_reduce',
    allgather: 'all_gather',
    reducescatter: 'reduce_scatter',
    alltoall: 'alltoall',
    broadcast: 'broadcast',
    reduce: 'reduce',
    sendrecv: 'sendrecv',
    gather: 'gather',
    scatter: 'scatter',
    hypercube: 'hypercube',
  };
  return known[compact] ?? name;
}
