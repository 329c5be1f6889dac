/**
 * The one suite every registered parser passes, driven by the registry (as hono's routers share
 * one suite): golden facts of each real output, the same facts through the paste normaliser, the
 * streaming form equal to the string form, never a throw on garbage and mutations, every cut of
 * every real output under 1 MB read without a crash, and every other kind's outputs refused.
 * Kind-specific facts checked by hand stay in each parser's own test file.
 */
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DETECT_THRESHOLD,
  detectKind,
  findParser,
  NotThisKindError,
  rawParsers,
} from '../../src/parse/index.js';
import { expectGoldenJson } from '../helpers/golden.js';
import {
  expectEveryCutParses,
  expectNeverThrows,
  FIXTURES_ROOT,
  realOutputs,
  type Fixture,
} from './tool-output-fixtures.js';

const EVERY_CUT_MAX_BYTES = 1 << 20;

/**
 * Pairs where a parser may accept another kind's output, each with why. Empty: every parser
 * refuses every other kind's real outputs.
 */
const MAY_ACCEPT: Partial<Record<string, string[]>> = {};

/** Real outputs held in this repository (the shared samples have no goldens here; they are read in place). */
function ownFixtures(kind: string): Fixture[] {
  return realOutputs(kind).filter((fixture) => !fixture.name.startsWith('shared/'));
}

/** nccl-tests keeps `NAME.golden.json` beside each log (older layout); every other kind a golden/ folder. */
function goldenPath(kind: string, fixture: Fixture): string {
  if (kind === 'nccl-tests') return `${fixture.path}.golden.json`;
  return join(FIXTURES_ROOT, kind, 'golden', `${basename(fixture.path)}.json`);
}

/** The text in chunks of `size` bytes, cutting UTF-8 sequences and lines as a read stream does. */
function chunks(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

for (const raw of rawParsers) {
  const kind = raw.kind;
  const pasteReading = findParser(kind)!;
  const own = ownFixtures(kind);
  const samples = realOutputs(kind).map((fixture) => fixture.text);

  describe(`parser ${kind}`, () => {
    it('has real outputs', () => {
      expect(own.length, `no fixtures for ${kind}`).toBeGreaterThan(0);
    });

    for (const fixture of own) {
      it(`golden facts: ${fixture.name}`, async () => {
        const result = raw.parse(fixture.text);
        expectGoldenJson(goldenPath(kind, fixture), result);
        expect(raw.detect(fixture.text)).toBeGreaterThanOrEqual(DETECT_THRESHOLD);
        expect(detectKind(fixture.text)?.kind).toBe(kind);
        // A clean capture reads the same through the paste normaliser (what the CLI and check use).
        expect(pasteReading.parse(fixture.text).facts).toEqual(result.facts);
        if (raw.parseStream) expect(await raw.parseStream(chunks(fixture.text, 97))).toEqual(result);
      });
    }

    it('never throws on garbage, truncations and mutations (as written and paste-reading)', () => {
      expectNeverThrows(raw, samples);
      expectNeverThrows(pasteReading, samples, 100);
    });

    it('reads every cut of every real output under 1 MB', () => {
      const small = samples.filter((text) => Buffer.byteLength(text) < EVERY_CUT_MAX_BYTES);
      expectEveryCutParses(raw, small);
    });

    it('refuses every other kind’s real outputs', () => {
      const allowed = new Set(MAY_ACCEPT[kind] ?? []);
      for (const other of rawParsers) {
        if (other === raw || allowed.has(other.kind)) continue;
        for (const fixture of realOutputs(other.kind)) {
          expect(() => raw.parse(fixture.text), `${kind} read ${fixture.name}`).toThrow(NotThisKindError);
          expect(raw.detect(fixture.text), `${kind} detected ${fixture.name}`).toBeLessThan(DETECT_THRESHOLD);
          expect(
            pasteReading.detect(fixture.text),
            `${kind} (paste-reading) detected ${fixture.name}`,
          ).toBeLessThan(DETECT_THRESHOLD);
        }
      }
    });
  });
}
