import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../src/core/envelope.js';
import { AifabricError } from '../../src/core/errors.js';
import { diffResults } from '../../src/store/index.js';
import { loadFixture } from '../report/fixtures.js';

/** A copy of a busbw result with busbw scaled by `factor` at the given sizes. */
function slowedAt<T extends ResultEnvelope>(envelope: T, factors: Record<number, number>): T {
  const copy = structuredClone(envelope);
  const rows = (
    copy.metrics as { rows: { sizeBytes: number; busbwGBps?: number; outOfPlace?: { busbwGBps: number } }[] }
  ).rows;
  for (const row of rows) {
    const factor = factors[row.sizeBytes];
    if (factor === undefined) continue;
    if (row.outOfPlace) row.outOfPlace.busbwGBps *= factor;
    else row.busbwGBps = (row.busbwGBps ?? 0) * factor;
  }
  return copy;
}

describe('diffResults', () => {
  it('names every message size where busbw fell by more than 5%, and only those', () => {
    const a = loadFixture('collective-roce')[0]!;
    const b = slowedAt(a, { 1024: 0.94, 1048576: 0.5, 4096: 0.96, 65536: 1.2 });
    const diff = diffResults(a, b);
    expect(diff.thresholdPercent).toBe(5);
    expect(diff.regressions.map((regression) => regression.sizeBytes)).toEqual([1024, 1048576]);
    expect(diff.regressions[1]).toMatchObject({
      op: 'all_reduce',
      curveA: 'roce-v2',
      changePercent: expect.closeTo(-50, 6),
    });
    expect(diff.busbw).toHaveLength((a.metrics as { rows: unknown[] }).rows.length);
    // A 4% dip is noise, a 20% gain is not a regression.
    expect(diff.busbw.find((entry) => entry.sizeBytes === 4096)?.regression).toBe(false);
  });

  it('reads measured curves (out-of-place busbw) from bench-tcp results', () => {
    const a = loadFixture('bench-tcp')[0]!;
    const b = slowedAt(a, { 4096: 0.8 });
    expect(diffResults(a, b).regressions.map((regression) => regression.sizeBytes)).toEqual([4096]);
    expect(diffResults(a, a).regressions).toEqual([]);
  });

  it('compares parse results of two captures even when the file names differ', () => {
    const a = loadFixture('parse-nccl')[0]!;
    const b = structuredClone(a);
    const file = (
      b.metrics as {
        files: {
          path: string;
          facts: { tests: { rows: { sizeBytes: number; outOfPlace: { busbwGBps: number } }[] }[] };
        }[];
      }
    ).files[0]!;
    file.path = 'captures/after-upgrade.txt';
    const row = file.facts.tests[0]!.rows.find((entry) => entry.sizeBytes === 33554432)!;
    row.outOfPlace.busbwGBps *= 0.9;
    const diff = diffResults(a, b);
    expect(
      diff.regressions.map((regression) => [regression.sizeBytes, regression.curveA, regression.curveB]),
    ).toEqual([[33554432, 'all_reduce_perf.txt', 'after-upgrade.txt']]);
  });

  it('lists changed metrics of other kinds by row identity, not position', () => {
    const a = loadFixture('compare')[0]!;
    const b = structuredClone(a);
    const rows = (b.metrics as { rows: { fabric: string; stepTimeMs: number }[] }).rows;
    rows.reverse();
    rows.find((row) => row.fabric === 'tcp')!.stepTimeMs = 1500;
    const diff = diffResults(a, b);
    expect(diff.regressions).toEqual([]);
    expect(diff.changes).toEqual([
      { path: 'rows[fabric=tcp].stepTimeMs', a: 1415, b: 1500, changePercent: expect.closeTo(6.007, 2) },
    ]);
    expect(diff.unchangedMetrics).toBeGreaterThan(10);
  });

  it('refuses to compare results of different kinds (exit 2)', () => {
    const run = () => diffResults(loadFixture('collective-roce')[0]!, loadFixture('plan')[0]!);
    expect(run).toThrow(AifabricError);
    expect(run).toThrow(/cannot diff a collective result with a plan result/);
  });
});
