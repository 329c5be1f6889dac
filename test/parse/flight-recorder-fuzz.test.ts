/**
 * Never-crash properties of the pickle and flight-recorder readers: truncated, mutated and random
 * pickles give facts that hold their invariants or an InputError, never another exception.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { readFlightRecorder } from '../../src/parse/flight-recorder.js';
import { readPickle } from '../../src/parse/pickle.js';
import type { TraceRankFacts } from '../../src/parse/trace-types.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'flight-recorder');

const dumps: Buffer[] = readdirSync(FIXTURES)
  .filter((name) => statSync(join(FIXTURES, name)).isDirectory())
  .flatMap((folder) =>
    readdirSync(join(FIXTURES, folder)).map((name) => readFileSync(join(FIXTURES, folder, name))),
  );

type Mutation =
  | { op: 'truncate'; at: number }
  | { op: 'set'; at: number; byte: number }
  | { op: 'delete'; at: number; length: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'duplicate'; at: number; length: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }),
  }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) }),
);

function mutate(buffer: Buffer, step: Mutation): Buffer {
  if (buffer.length === 0) return buffer;
  const at = step.at % buffer.length;
  switch (step.op) {
    case 'truncate':
      return buffer.subarray(0, at);
    case 'set': {
      const copy = Buffer.from(buffer);
      copy[at] = step.byte;
      return copy;
    }
    case 'delete':
      return Buffer.concat([buffer.subarray(0, at), buffer.subarray(at + step.length)]);
    case 'insert':
      return Buffer.concat([buffer.subarray(0, at), step.bytes, buffer.subarray(at)]);
    case 'duplicate':
      return Buffer.concat([buffer.subarray(0, at + step.length), buffer.subarray(at)]);
  }
}

const mutatedDump = fc
  .tuple(fc.nat({ max: dumps.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 5 }))
  .map(([index, steps]) => steps.reduce((buffer, step) => mutate(buffer, step), dumps[index]!));

/** Facts or an InputError; facts must keep the shapes the trace engine relies on. */
function readOrInputError(buffer: Buffer): TraceRankFacts | null {
  try {
    return readFlightRecorder(buffer, 'fuzz/nccl_trace_rank_1');
  } catch (error) {
    if (error instanceof InputError) return null;
    throw error;
  }
}

function expectSaneFacts(facts: TraceRankFacts): void {
  expect(facts.format).toBe('flight-recorder');
  expect(Number.isSafeInteger(facts.rank)).toBe(true);
  if (facts.collectives.length > 0) expect(facts.clockBaseNs).toMatch(/^-?\d+$/);
  for (const c of facts.collectives) {
    expect(Number.isSafeInteger(c.seq) && c.seq >= 0).toBe(true);
    expect(typeof c.group).toBe('string');
    expect(typeof c.op).toBe('string');
    expect(Number.isFinite(c.startUs) && c.startUs >= 0).toBe(true);
    // A duration is a finite number, or NaN (unknown: never finished, or no times to tell).
    expect(Number.isNaN(c.durUs) || Number.isFinite(c.durUs)).toBe(true);
    if (c.state !== 'completed') expect(Number.isNaN(c.durUs)).toBe(true);
    expect(['completed', 'started', 'scheduled']).toContain(c.state);
    expect(c.startNs).toMatch(/^-?\d+$/);
    expect(c.sizeBytes === null || (Number.isSafeInteger(c.sizeBytes) && c.sizeBytes >= 0)).toBe(true);
  }
}

describe('flight-recorder and pickle readers never crash', () => {
  it('has dumps to mutate', () => {
    expect(dumps.length).toBeGreaterThanOrEqual(8);
  });

  it('mutated dumps: facts with their invariants, or an InputError', () => {
    fc.assert(
      fc.property(mutatedDump, (buffer) => {
        const facts = readOrInputError(buffer);
        if (facts) expectSaneFacts(facts);
      }),
      { numRuns: 500 },
    );
  });

  it('random bytes after a PROTO header: a value or an InputError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5 }), fc.uint8Array({ maxLength: 512 }), (protocol, body) => {
        const buffer = Buffer.concat([Buffer.from([0x80, protocol]), body]);
        try {
          readPickle(buffer);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
        }
        const facts = readOrInputError(buffer);
        if (facts) expectSaneFacts(facts);
      }),
      { numRuns: 500 },
    );
  });
});
