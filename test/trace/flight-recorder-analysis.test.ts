/**
 * The engine on flight-recorder dumps written by Python's pickle (test/fixtures/flight-recorder,
 * make_dumps.py): a hang names the collective, the rank stuck in it and the rank that never started
 * it; a send and its receive are matched on their own sequence and are not "missing" on other ranks.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/parse/index.js';
import { analyseTrace } from '../../src/trace/index.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/flight-recorder');

describe('flight-recorder dumps through the engine', () => {
  it('a hang: collective 3 still running on rank 0, queued but never started on rank 1', async () => {
    const result = analyseTrace(await readTraceFiles([path.join(fixtures, 'hang-p4')]));
    const rows = result.metrics.collectives;
    expect(rows.map((row) => row.seq)).toEqual([1, 2, 3]);
    const stuck = rows[2]!;
    expect(stuck.unfinishedRanks).toEqual([0]);
    expect(stuck.notStartedRanks).toEqual([1]);
    expect(stuck.ranksSeen).toEqual([0]);
    expect(stuck.trueTimeUs).toBeNull();
    expect(stuck.dursUs).toEqual([null]);
    // The finished ones keep their true time (250 us on rank 0, 251 on rank 1).
    expect(rows[0]!.trueTimeUs).toBeCloseTo(250, 6);
    const hang = result.findings?.filter((f) => f.ruleId === 'trace.unfinished') ?? [];
    expect(hang).toHaveLength(1);
    expect(hang[0]).toMatchObject({ severity: 'error', seq: 3, unfinishedRanks: [0], neverStarted: [1] });
    expect(hang[0]!.message).toContain('never finished on rank 0; rank 1 never started it (queued on 1)');
    // JSON keeps the shape: no NaN turned silently into null where a number is promised.
    expect(JSON.parse(JSON.stringify(result)).metrics.collectives[2].trueTimeUs).toBeNull();
  });

  it("a send and its receive match on the p2p sequence; the group's other ranks are not missing from it", async () => {
    const result = analyseTrace(await readTraceFiles([path.join(fixtures, 'straggler-p2')]));
    const p2p = result.metrics.collectives.filter((row) => row.op === 'send' || row.op === 'recv');
    expect(p2p).toHaveLength(1);
    expect(p2p[0]!.ranksSeen).toEqual([0, 1]);
    expect(p2p[0]!.ranksMissing).toEqual([]);
    expect(result.findings?.some((f) => f.ruleId === 'trace.rank-missing')).toBe(false);
    // The injected delay: rank 2 starts collective 4 of group 0 late by 1500 us.
    const late = result.metrics.collectives.find(
      (row) => row.group === '0' && row.seq === 4 && row.op === 'all_reduce',
    )!;
    expect(late.lastRank).toBe(2);
    expect(late.startSkewUs).toBeGreaterThan(1500);
    expect(late.startSkewUs).toBeLessThan(1510);
  });
});
