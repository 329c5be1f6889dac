/**
 * Defensive readers for envelopes of any shape: the store and the report read results from older or
 * newer engines, and hand-edited JSON, without crashing, so every field is checked before it is used.
 */
import { collectiveOpOf } from '../core/collectives.js';

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

/** nccl-tests binaries beyond the collective vocabulary, kept as their own keys. */
const OTHER_NCCL_TESTS_OPS: ReadonlySet<string> = new Set(['gather', 'scatter', 'hypercube']);

/** nccl-tests names (`all_reduce_perf`), our names (`all_reduce`) and loose ones (`allreduce`) to one key. */
export function normaliseOp(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const compact = name
    .toLowerCase()
    .replace(/_perf$/, '')
    .replace(/[^a-z]/g, '');
  return collectiveOpOf(compact) ?? (OTHER_NCCL_TESTS_OPS.has(compact) ? compact : name);
}
