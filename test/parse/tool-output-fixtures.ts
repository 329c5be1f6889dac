/**
 * Shared by the tool-output parser tests: the real outputs under test/fixtures/<kind>/, golden
 * facts under test/fixtures/<kind>/golden/ (compared by test/helpers/golden.ts), and one
 * fast-check property every parser must pass: garbage, truncations and mutations of the real
 * outputs never raise anything but NotThisKindError.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { NotThisKindError, type Parser } from '../../src/parse/types.js';

export const FIXTURES_ROOT = join(import.meta.dirname, '..', 'fixtures');
export const SHARED_SAMPLES_ROOT = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'samples');

export interface Fixture {
  name: string;
  path: string;
  text: string;
}

/** Real outputs of one kind: every file of its folder except SOURCES.md and the golden folder. */
export function fixtures(kind: string): Fixture[] {
  const folder = join(FIXTURES_ROOT, kind);
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'SOURCES.md')
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, path: join(folder, name), text: readFileSync(join(folder, name), 'utf8') }));
}

export function fixtureText(kind: string, name: string): string {
  return readFileSync(join(FIXTURES_ROOT, kind, name), 'utf8');
}

/** Calls parse and fails the property on any exception other than NotThisKindError. */
function parseSafely(parser: Parser, text: string): void {
  const confidence = parser.detect(text);
  if (!(confidence >= 0 && confidence <= 1)) throw new Error(`detect returned ${confidence}`);
  try {
    parser.parse(text);
  } catch (error) {
    if (!(error instanceof NotThisKindError)) throw error;
  }
}

function mutations(samples: string[]): fc.Arbitrary<string> {
  const sample = fc.constantFrom(...samples);
  const truncated = fc
    .tuple(sample, fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([text, at]) => text.slice(0, Math.floor(text.length * at)));
  const linesShuffled = fc.tuple(sample, fc.array(fc.nat(), { maxLength: 12 })).map(([text, picks]) => {
    const lines = text.split('\n');
    // Delete, duplicate or swap lines: what two processes writing to one file, or a bad copy, do.
    for (const pick of picks) {
      const i = pick % Math.max(lines.length, 1);
      const op = pick % 3;
      if (op === 0) lines.splice(i, 1);
      else if (op === 1) lines.splice(i, 0, lines[i] ?? '');
      else [lines[0], lines[i]] = [lines[i] ?? '', lines[0] ?? ''];
    }
    return lines.join('\n');
  });
  const charsReplaced = fc
    .tuple(
      sample,
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.constantFrom(
            '',
            ' ',
            '\t',
            ':',
            '=',
            '-',
            '0',
            '9',
            'x',
            '[',
            ']',
            '{',
            '}',
            '"',
            ',',
            '\n',
            '\u0000',
            'é',
          ),
        ),
        { maxLength: 20 },
      ),
    )
    .map(([text, edits]) => {
      let out = text;
      for (const [position, replacement] of edits) {
        const i = out.length === 0 ? 0 : position % out.length;
        out = out.slice(0, i) + replacement + out.slice(i + 1);
      }
      return out;
    });
  const randomBytes = fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes).toString('latin1'));
  return fc.oneof(fc.string({ maxLength: 300 }), randomBytes, truncated, linesShuffled, charsReplaced);
}

/** The shared never-throw property: every parser passes it against its own real outputs. */
export function expectNeverThrows(parser: Parser, samples: string[], numRuns = 200): void {
  fc.assert(
    fc.property(mutations(samples), (text) => {
      parseSafely(parser, text);
    }),
    { numRuns, seed: 20261130 },
  );
}

/** Every cut of every sample at a line end and in the middle of a line: warnings, never a crash. */
export function expectEveryCutParses(parser: Parser, samples: string[]): void {
  for (const sample of samples) {
    const lines = sample.split('\n');
    for (let k = 0; k <= lines.length; k++) {
      const whole = lines.slice(0, k).join('\n');
      const half = lines[k] ?? '';
      parseSafely(parser, whole);
      parseSafely(parser, `${whole}\n${half.slice(0, Math.floor(half.length / 2))}`);
    }
  }
}

/** Real captures of kinds whose fixtures live elsewhere (check's published switch and NIC configurations). */
const EXTRA_FIXTURES: Record<string, string[]> = {
  'mlnx-qos': ['check/qos/mellanox-doc2792-mlnx_qos-pfc-0267.txt'],
  'sonic-config-db': ['check/qos/sonic-rest-test-qos-config-azure-lossless.json'],
};

/**
 * Every real output of a registered kind: test/fixtures/<kind>/ (goldens and SOURCES.md left out),
 * the kind's extra fixtures, and the shared samples in ../shared/data/samples/<kind>/ (read in place).
 */
export function realOutputs(kind: string): Fixture[] {
  const found: Fixture[] = [];
  const folder = join(FIXTURES_ROOT, kind);
  if (existsSync(folder)) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name === 'SOURCES.md' || entry.name.endsWith('.golden.json')) continue;
      found.push({
        name: `${kind}/${entry.name}`,
        path: join(folder, entry.name),
        text: readFileSync(join(folder, entry.name), 'utf8'),
      });
    }
  }
  for (const relativePath of EXTRA_FIXTURES[kind] ?? []) {
    const path = join(FIXTURES_ROOT, relativePath);
    found.push({ name: relativePath, path, text: readFileSync(path, 'utf8') });
  }
  const shared = join(SHARED_SAMPLES_ROOT, kind);
  if (existsSync(shared)) {
    for (const name of readdirSync(shared)) {
      const path = join(shared, name);
      if (statSync(path).isFile())
        found.push({ name: `shared/${kind}/${name}`, path, text: readFileSync(path, 'utf8') });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}
