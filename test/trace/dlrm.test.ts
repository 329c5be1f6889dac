/**
 * The engine on the real 8-rank DLRM trace against independent values: test/trace/expected_dlrm.py
 * (Python standard library, raw events) wrote expected_dlrm.json; times agree within 0.01 us. The
 * tarball is read twice: by the project's reader (src/parse readTraceFiles) and by the test's own
 * small loader (dlrm-loader.ts), so a reader change and an engine change show apart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/parse/index.js';
import type { TraceRankFacts } from '../../src/parse/trace-types.js';
import { analyseTrace } from '../../src/trace/index.js';
import { DLRM_TARBALL, loadDlrmFacts } from './dlrm-loader.js';

const here = path.dirname(fileURLToPath(import.meta.url));

interface ExpectedRow {
  seq: number;
  ranksSeen: number[];
  startSkewUs: number;
  trueTimeUs: number;
  lastRank: number;
  waitUs: number[];
}
interface Expected {
  ranks: number[];
  collectives: ExpectedRow[];
  stragglers: { rank: number; lastCount: number; lostUs: number; cause: string }[];
}
const expected = JSON.parse(readFileSync(path.join(here, 'expected_dlrm.json'), 'utf8')) as Expected;

const sources: [string, () => Promise<TraceRankFacts[]>][] = [
  ['readTraceFiles', () => readTraceFiles([DLRM_TARBALL])],
  ['the test loader', () => Promise.resolve(loadDlrmFacts())],
];

describe.each(sources)(
  'trace analysis of the DLRM 8 x V100 step (facebookresearch/param), read by %s',
  (_label, read) => {
    let result: ReturnType<typeof analyseTrace>;
    let m: ReturnType<typeof analyseTrace>['metrics'];
    beforeAll(async () => {
      result = analyseTrace(await read());
      m = result.metrics;
    });

    it('matches the 8 collectives on all 8 ranks of one host, unshifted', () => {
      expect(m.ranks.map((r) => r.rank)).toEqual(expected.ranks);
      expect(m.collectives).toHaveLength(expected.collectives.length);
      expect(m.nodes).toBe(1);
      expect(m.gpusPerNode).toBe(8);
      expect(m.clockAligned).toBe(false);
      expect(Object.values(m.clockOffsetsUs)).toEqual([0]);
      expect(m.collectives.map((c) => c.op)).toEqual([
        'sendrecv',
        'sendrecv',
        'sendrecv',
        'sendrecv',
        'all_reduce',
        'sendrecv',
        'all_reduce',
        'all_reduce',
      ]);
      for (const c of m.collectives) expect(c.ranksMissing).toEqual([]);
    });

    it('gives the skew, true time, last arriver and waits of the independent script', () => {
      for (const want of expected.collectives) {
        const got = m.collectives.find((c) => c.seq === want.seq);
        expect(got, `seq ${want.seq}`).toBeDefined();
        if (!got) continue;
        expect(got.ranksSeen).toEqual(want.ranksSeen);
        expect(got.startSkewUs).toBeCloseTo(want.startSkewUs, 2);
        expect(got.trueTimeUs).toBeCloseTo(want.trueTimeUs, 2);
        expect(got.lastRank).toBe(want.lastRank);
        got.waitUs.forEach((w, i) => expect(w).toBeCloseTo(want.waitUs[i]!, 2));
        // No sizes in this old trace: no busbw.
        expect(got.busbwGBps).toBeNull();
      }
    });

    it('ranks the stragglers as the independent script does, causes included', () => {
      expect(m.stragglers.map((s) => [s.rank, s.lastCount, s.cause])).toEqual(
        expected.stragglers.map((s) => [s.rank, s.lastCount, s.cause]),
      );
      m.stragglers.forEach((s, i) => expect(s.lostUs).toBeCloseTo(expected.stragglers[i]!.lostUs, 2));
      const named = (result.findings ?? []).filter((f) => f.ruleId === 'trace.straggler');
      expect(named[0]?.rank).toBe(expected.stragglers[0]?.rank);
    });

    it('has one iteration with the step terms on every rank', () => {
      expect(m.iterations).toHaveLength(1);
      const it0 = m.iterations[0];
      expect(it0?.ranks).toEqual(expected.ranks);
      expect(it0?.maxStepUs).toBeGreaterThan(0);
      expect(it0?.maxComputeUs).toBeGreaterThan(0);
      expect(it0?.maxCommUs).toBeGreaterThan(0);
      it0?.exposedCommUs.forEach((e, i) => expect(e).toBeLessThanOrEqual(it0.commUs[i]!));
    });
  },
);
