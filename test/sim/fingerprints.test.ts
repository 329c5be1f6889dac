/**
 * Regression fingerprints: every example scenario, in packet and fluid mode, with seeds 1 and 2,
 * hashed by simFingerprint (SHA-256 of the canonical JSON of the envelope less createdAt, timing
 * and tool.version) and compared with test/sim/fingerprints.json. A mismatch means the simulator's
 * output changed: if the change is intended, `UPDATE_FINGERPRINTS=1 npx vitest run
 * test/sim/fingerprints.test.ts` rewrites the file (review its diff: the summary fields show
 * what moved). About 17 s on one idle core.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../src/core/envelope.js';
import { canonicalJson, FINGERPRINT_EXCLUDED, simFingerprint } from '../../src/sim/fingerprint.js';
import { runScenario, type SimMode } from '../../src/sim/run.js';
import { loadScenario } from '../../src/sim/scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'examples', 'scenarios');
const STORE = join(import.meta.dirname, 'fingerprints.json');
const UPDATE = process.env.UPDATE_FINGERPRINTS === '1';
const MODES: readonly SimMode[] = ['packet', 'fluid'];
const SEEDS = [1, 2] as const;

interface Fingerprint {
  scenario: string;
  mode: SimMode;
  seed: number;
  sha256: string;
  /** Headline metrics, stored so that a changed hash says what moved; only the hash is compared. */
  summary: Record<string, unknown>;
}

interface Store {
  about: string;
  excluded: string[];
  fingerprints: Fingerprint[];
}

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const cases = files.flatMap((scenario) =>
  MODES.flatMap((mode) => SEEDS.map((seed) => ({ scenario, mode, seed }))),
);
const keyOf = (c: { scenario: string; mode: string; seed: number }): string =>
  `${c.scenario} ${c.mode} seed ${c.seed}`;

const stored: Store | undefined = existsSync(STORE)
  ? (JSON.parse(readFileSync(STORE, 'utf8')) as Store)
  : undefined;
const storedByKey = new Map((stored?.fingerprints ?? []).map((f) => [keyOf(f), f]));
const computed = new Map<string, Fingerprint>();

function summaryOf(result: ResultEnvelope): Record<string, unknown> {
  const m = result.metrics;
  const pick = ['status', 'completionTimeUs', 'goodputGbps', 'events', 'drops', 'timeouts', 'pauseFrames'];
  return Object.fromEntries(pick.filter((k) => k in m).map((k) => [k, m[k]]));
}

describe('simFingerprint', () => {
  const base = {
    kind: 'sim',
    schemaVersion: 1,
    tool: { name: 'aifabric', version: '0.1.0' },
    createdAt: '2024-01-01T00:00:00.000Z',
    inputs: { scenario: 'x', mode: 'packet', seed: 1 },
    metrics: { a: 1, b: { c: [1, 2], d: null } },
    timing: { wallSeconds: 1 },
  } satisfies ResultEnvelope;

  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
    expect(canonicalJson({ a: undefined, b: Number.NaN })).toBe('{"b":null}');
  });

  it(`ignores ${FINGERPRINT_EXCLUDED.join(', ')} and key order; sees any other change`, () => {
    const h = simFingerprint(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(
      simFingerprint({
        ...base,
        createdAt: '2030-05-05T00:00:00.000Z',
        timing: { wallSeconds: 9, peakRssMiB: 3 },
      }),
    ).toBe(h);
    expect(simFingerprint({ ...base, tool: { name: 'aifabric', version: '9.9.9' } })).toBe(h);
    const { timing: _t, ...noTiming } = base;
    expect(simFingerprint(noTiming)).toBe(h);
    expect(simFingerprint({ ...base, metrics: { b: { d: null, c: [1, 2] }, a: 1 } })).toBe(h);
    expect(simFingerprint({ ...base, metrics: { a: 1, b: { c: [2, 1], d: null } } })).not.toBe(h);
    expect(simFingerprint({ ...base, tool: { name: 'other', version: '0.1.0' } })).not.toBe(h);
    expect(simFingerprint({ ...base, warnings: ['w'] })).not.toBe(h);
  });
});

describe('regression fingerprints of the example scenarios', () => {
  it('the stored file lists exactly these scenarios, modes and seeds', () => {
    if (UPDATE) return;
    expect(stored, `${STORE} is missing: run with UPDATE_FINGERPRINTS=1 and review it`).toBeDefined();
    expect([...storedByKey.keys()].sort()).toEqual(cases.map(keyOf).sort());
    expect(stored!.excluded).toEqual([...FINGERPRINT_EXCLUDED]);
  });

  for (const c of cases) {
    it(keyOf(c), () => {
      const scenario = loadScenario(join(DIR, c.scenario), { mode: c.mode });
      const result = runScenario(scenario, { mode: c.mode, seed: c.seed });
      const fp: Fingerprint = { ...c, sha256: simFingerprint(result), summary: summaryOf(result) };
      computed.set(keyOf(c), fp);
      if (UPDATE) return;
      const want = storedByKey.get(keyOf(c));
      expect(want, `no stored fingerprint for ${keyOf(c)}: UPDATE_FINGERPRINTS=1 adds it`).toBeDefined();
      expect(
        fp.sha256,
        `${keyOf(c)}: the simulator's output changed (summary now ${JSON.stringify(fp.summary)}, stored ${JSON.stringify(want!.summary)}); ` +
          'if intended, rerun with UPDATE_FINGERPRINTS=1 and review the diff',
      ).toBe(want!.sha256);
    });
  }

  afterAll(() => {
    if (!UPDATE) return;
    // Only a complete run rewrites the file: a filtered one (-t) would drop the cases it skipped.
    if (computed.size !== cases.length)
      throw new Error(
        `UPDATE_FINGERPRINTS=1 computed ${computed.size} of ${cases.length} fingerprints; not rewriting ${STORE}`,
      );
    const out: Store = {
      about:
        "SHA-256 of the canonical JSON (sorted keys) of runScenario's envelope less `excluded`, per example scenario, mode and seed. " +
        'Written by UPDATE_FINGERPRINTS=1 npx vitest run test/sim/fingerprints.test.ts; summary is for reading diffs, only sha256 is compared.',
      excluded: [...FINGERPRINT_EXCLUDED],
      fingerprints: cases.map((x) => computed.get(keyOf(x))!),
    };
    writeFileSync(STORE, `${JSON.stringify(out, null, 2)}\n`);
  });
});
