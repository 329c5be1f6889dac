/** The store room's envelopes for `runs list|diff|import`, called as a library (no CLI). */
import { describe, expect, it } from 'vitest';
import { makeResult } from '../../src/core/envelope.js';
import { diffRuns, importRuns, listRunsResult, RunStore } from '../../src/store/index.js';
import { tempDbPath } from './store-helpers.js';

const collective = (busbw: number[]) =>
  makeResult(
    'collective',
    { op: 'all_reduce', fabric: 'roce-400g' },
    {
      op: 'all_reduce',
      rows: busbw.map((busbwGBps, index) => ({
        sizeBytes: 1024 * 2 ** index,
        timeUs: 10,
        algbwGBps: busbwGBps / 2,
        busbwGBps,
      })),
    },
    { createdAt: new Date('2026-12-01T00:00:00Z') },
  );

describe('runs envelopes from the store room', () => {
  it('diffRuns: one busbw-regression error per size that fell more than 5%, built by the rule table', () => {
    const store = new RunStore(tempDbPath());
    try {
      const a = store.save(collective([10, 20, 40]));
      const b = store.save(collective([10, 18, 30]));
      const result = diffRuns(store, a, b);
      expect(result.kind).toBe('runs-diff');
      expect(result.inputs).toEqual({ db: store.path, a, b });
      expect(result.metrics.regressions.map((entry) => entry.sizeBytes)).toEqual([2048, 4096]);
      expect(
        result.findings?.map((finding) => [finding.ruleId, finding.severity, finding.sizeBytes]),
      ).toEqual([
        ['busbw-regression', 'error', 2048],
        ['busbw-regression', 'error', 4096],
      ]);
      expect(diffRuns(store, a, a).findings).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('importRuns saves new envelopes and reports identical ones as skipped; listRunsResult lists them newest first', () => {
    const store = new RunStore(tempDbPath());
    try {
      const envelope = collective([10]);
      const result = importRuns(
        store,
        ['a.json'],
        [
          { envelope, ref: 'a.json' },
          { envelope, ref: 'a.json[1]' },
        ],
      );
      expect(result.kind).toBe('runs-import');
      expect(result.metrics.runs.map((run) => run.kind)).toEqual(['collective']);
      expect(result.metrics.skipped).toEqual([{ ref: 'a.json[1]', duplicateOf: result.metrics.runs[0]?.id }]);
      const list = listRunsResult(store, { kind: 'collective' });
      expect(list.inputs).toEqual({ db: store.path, kind: 'collective', limit: null });
      expect(list.metrics.runs.map((run) => run.id)).toEqual([result.metrics.runs[0]?.id]);
      expect(() => listRunsResult(store, { kind: 'no-such-kind' })).toThrow(/no-such-kind/);
    } finally {
      store.close();
    }
  });
});
