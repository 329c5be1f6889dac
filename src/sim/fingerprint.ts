/**
 * Regression fingerprints of simulator results: the SHA-256 of a canonical JSON (object keys sorted
 * at every level, arrays in order) of a result envelope, less the fields that differ between two
 * runs of the same scenario, mode and seed. Two runs agree on every other byte (runScenario's
 * contract, checked by test/sim/examples.test.ts), so a changed fingerprint means changed output.
 * test/sim/fingerprints.test.ts holds one per example scenario, mode and seed.
 */
import { createHash } from 'node:crypto';
import type { ResultEnvelope } from '../core/envelope.js';

/**
 * Left out of the hash. createdAt and timing (wall seconds, events per second, peak RSS) are
 * wall-clock figures and differ on every run; tool.version is the package's release number, which
 * changes on a release without any change to the simulator's output.
 */
export const FINGERPRINT_EXCLUDED = ['createdAt', 'timing', 'tool.version'] as const;

/**
 * JSON with object keys sorted (by UTF-16 code units, as Array.prototype.sort) at every level.
 * The value goes through JSON.stringify first, so undefined, NaN and typed arrays come out as
 * `--json` would print them.
 */
export function canonicalJson(value: unknown): string {
  const plain: unknown = JSON.parse(JSON.stringify(value) ?? 'null');
  return stringifySorted(plain);
}

function stringifySorted(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stringifySorted).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stringifySorted(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The part of an envelope a fingerprint covers: everything but FINGERPRINT_EXCLUDED. */
export function fingerprintPayload(result: ResultEnvelope): Record<string, unknown> {
  const { createdAt: _createdAt, timing: _timing, tool, ...rest } = result;
  const { version: _version, ...toolRest } = tool;
  return { ...rest, tool: toolRest };
}

/** SHA-256 (hex) of the canonical JSON of fingerprintPayload(result). */
export function simFingerprint(result: ResultEnvelope): string {
  return createHash('sha256')
    .update(canonicalJson(fingerprintPayload(result)))
    .digest('hex');
}
