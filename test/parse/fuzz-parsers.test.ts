/**
 * Never-throw properties over every parser in the registry: random bytes, and truncations, line
 * deletions/duplications and character mutations of the real samples in test/fixtures. The only
 * exception a parser may raise is NotThisKindError; garbage must not be detected as any kind.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectKind, NotThisKindError, parseNcclTests, parsers } from '../../src/parse/index.js';

const FIXTURE_ROOT = join(import.meta.dirname, '..', 'fixtures');

function listSamples(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listSamples(path);
    return /\.(golden\.json|md)$/.test(name) ? [] : [path];
  });
}

const samples = listSamples(FIXTURE_ROOT).map((path) => readFileSync(path, 'utf8'));

/** Run every parser; anything thrown other than NotThisKindError fails the property. */
function parseWithEveryParser(text: string): void {
  for (const parser of parsers) {
    const confidence = parser.detect(text);
    if (!(confidence >= 0 && confidence <= 1))
      throw new Error(`${parser.kind}.detect returned ${confidence}`);
    try {
      parser.parse(text);
    } catch (error) {
      if (!(error instanceof NotThisKindError))
        throw new Error(`${parser.kind}.parse threw ${String(error)}`, { cause: error });
    }
  }
}

type Mutation =
  | { op: 'truncate'; at: number }
  | { op: 'cut-start'; at: number }
  | { op: 'delete-line'; at: number }
  | { op: 'duplicate-line'; at: number }
  | { op: 'replace-char'; at: number; char: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('cut-start' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('delete-line' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('replace-char' as const),
    at: fc.nat(),
    char: fc.constantFrom(
      ' ',
      '\n',
      '#',
      '0',
      '9',
      '.',
      '-',
      'e',
      'N/A',
      '\t',
      '\u0000',
      'é',
      '[1,0]<stdout>:',
    ),
  }),
);

function mutate(text: string, step: Mutation): string {
  if (text.length === 0) return text;
  const at = step.at % text.length;
  switch (step.op) {
    case 'truncate':
      return text.slice(0, at);
    case 'cut-start':
      return text.slice(at);
    case 'replace-char':
      return text.slice(0, at) + step.char + text.slice(at + 1);
    case 'delete-line':
    case 'duplicate-line': {
      const lines = text.split('\n');
      const index = step.at % lines.length;
      if (step.op === 'delete-line') lines.splice(index, 1);
      else lines.splice(index, 0, lines[index] ?? '');
      return lines.join('\n');
    }
  }
}

const mutatedSample = fc
  .tuple(fc.nat({ max: samples.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }))
  .map(([index, steps]) => steps.reduce((text, step) => mutate(text, step), samples[index] ?? ''));

describe('parsers never throw on malformed input', () => {
  it('has real samples to mutate', () => {
    expect(samples.length).toBeGreaterThanOrEqual(20);
  });

  it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        parseWithEveryParser(Buffer.from(bytes).toString('utf8'));
      }),
      { numRuns: 300 },
    );
  });

  it('mutations of the real samples', () => {
    fc.assert(
      fc.property(mutatedSample, (text) => {
        parseWithEveryParser(text);
      }),
      { numRuns: 400 },
    );
  });

  it('nccl-tests rows stay complete under mutation: finite numbers, peak equals the best row', () => {
    fc.assert(
      fc.property(mutatedSample, (text) => {
        let tests;
        try {
          tests = parseNcclTests(text).facts.tests;
        } catch (error) {
          if (error instanceof NotThisKindError) return;
          throw error;
        }
        for (const test of tests) {
          let best: number | null = null;
          for (const row of test.rows) {
            for (const half of [row.outOfPlace, row.inPlace]) {
              expect(
                Number.isFinite(half.timeUs) &&
                  Number.isFinite(half.algbwGBps) &&
                  Number.isFinite(half.busbwGBps),
              ).toBe(true);
              expect(half.wrong === null || Number.isFinite(half.wrong)).toBe(true);
              best = Math.max(best ?? -Infinity, half.busbwGBps);
            }
            expect(Number.isSafeInteger(row.sizeBytes) && Number.isSafeInteger(row.count)).toBe(true);
          }
          expect(test.peakBusbwGBps).toBe(best);
          for (const warning of test.warnings)
            expect(warning.line === undefined || warning.line >= 1).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('garbage is detected as no kind', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        expect(detectKind(Buffer.from(bytes).toString('latin1'))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
