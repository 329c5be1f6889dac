/**
 * Every collective, element type and reduction, at sizes that do not divide by the rank count and
 * 2 to 8 ranks, each result element checked (`-c 1`) against its deterministic expected value.
 * Ranks run as tasks in this process over real loopback sockets; small slices force the
 * pipelined paths (several slices per socket, several sockets per peer).
 */
import { describe, expect, it } from 'vitest';
import { BENCH_OPS, DATA_TYPES, REDUCE_OPS } from '../../src/bench/types.js';
import { ELEMENT_BYTES } from '../../src/bench/datatypes.js';
import { allReduceSchedule, hostsCrowded, neededPeers } from '../../src/bench/collective.js';
import { halvingDoublingPartners } from '../../src/bench/halving-doubling.js';
import { baseParams, runInProcess } from './helpers.js';

const cases: {
  nranks: number;
  dataType: (typeof DATA_TYPES)[number];
  redOp: (typeof REDUCE_OPS)[number];
  sockets: number;
}[] = [
  ...DATA_TYPES.flatMap((dataType) =>
    REDUCE_OPS.map((redOp) => ({ nranks: 3, dataType, redOp, sockets: 2 })),
  ),
  { nranks: 2, dataType: 'float', redOp: 'sum', sockets: 1 },
  { nranks: 4, dataType: 'int32', redOp: 'max', sockets: 3 },
  { nranks: 5, dataType: 'double', redOp: 'min', sockets: 2 },
  { nranks: 8, dataType: 'float', redOp: 'sum', sockets: 2 },
];

describe.each(BENCH_OPS)('%s', (op) => {
  it.each(cases)(
    '$nranks ranks, $dataType $redOp, $sockets sockets: every element right',
    async ({ nranks, dataType, redOp, sockets }) => {
      const params = { ...baseParams, op, dataType, redOp, sockets, root: nranks - 1 };
      const results = await runInProcess(nranks, params, { sliceBytes: 1024 });
      const rows = results[0]!.rows;
      // 52 B = 13 floats: 13, 91, 637, 4459 elements: none divides by 2..8 evenly (except by 13 or 7 itself).
      expect(rows.map((row) => row.sizeBytes).length).toBe(4);
      for (const row of rows) {
        expect(row.outOfPlace.wrong).toBe(0);
        expect(row.inPlace.wrong).toBe(0);
      }
      expect(results.every((result) => result.outOfBounds === 0)).toBe(true);
    },
  );
});

// The same sweep over libuv's callbacks (AIFABRIC_BENCH_PROGRESS=events), the path poll mode
// falls back to where a socket's descriptor cannot be had.
describe.each(BENCH_OPS)('%s, events mode', (op) => {
  it.each(cases.filter((c) => c.nranks === 3 && c.redOp !== 'min').slice(0, 3))(
    '$nranks ranks, $dataType $redOp, $sockets sockets: every element right',
    async ({ nranks, dataType, redOp, sockets }) => {
      const params = { ...baseParams, op, dataType, redOp, sockets, root: nranks - 1 };
      const results = await runInProcess(nranks, params, { sliceBytes: 1024, progress: 'events' });
      for (const row of results[0]!.rows) {
        expect(row.outOfPlace.wrong).toBe(0);
        expect(row.inPlace.wrong).toBe(0);
      }
    },
  );
});

// all_reduce's two schedules: --algo auto (the sweep above) runs halving-doubling on 4 and 8 ranks, so
// the ring is forced there; halving-doubling at 2, 4 and 8 ranks and, folded, at 3, 5, 6 and 7, both
// progress modes, with counts below the rank count (empty chunks) and uneven slices.
describe('all_reduce, each --algo', () => {
  const algoCases = [
    { algo: 'ring', nranks: 4, dataType: 'float', redOp: 'sum', sockets: 2, progress: 'poll' },
    { algo: 'ring', nranks: 8, dataType: 'int32', redOp: 'min', sockets: 1, progress: 'poll' },
    { algo: 'halving-doubling', nranks: 2, dataType: 'double', redOp: 'max', sockets: 2, progress: 'poll' },
    { algo: 'halving-doubling', nranks: 4, dataType: 'double', redOp: 'sum', sockets: 3, progress: 'poll' },
    { algo: 'halving-doubling', nranks: 8, dataType: 'int32', redOp: 'max', sockets: 2, progress: 'poll' },
    { algo: 'halving-doubling', nranks: 4, dataType: 'float', redOp: 'min', sockets: 2, progress: 'events' },
    { algo: 'halving-doubling', nranks: 3, dataType: 'float', redOp: 'sum', sockets: 1, progress: 'poll' },
    { algo: 'halving-doubling', nranks: 5, dataType: 'int32', redOp: 'sum', sockets: 2, progress: 'poll' },
    { algo: 'halving-doubling', nranks: 6, dataType: 'double', redOp: 'min', sockets: 1, progress: 'events' },
    { algo: 'halving-doubling', nranks: 7, dataType: 'float', redOp: 'max', sockets: 2, progress: 'poll' },
  ] as const;
  it.each(algoCases)(
    '$algo, $nranks ranks, $dataType $redOp, $sockets sockets, $progress: every element right',
    async ({ algo, nranks, dataType, redOp, sockets, progress }) => {
      const params = {
        ...baseParams,
        op: 'all_reduce' as const,
        dataType,
        redOp,
        sockets,
        algo,
        minBytes: ELEMENT_BYTES[dataType],
        stepFactor: 7,
      };
      const results = await runInProcess(nranks, params, { sliceBytes: 1024, progress });
      const rows = results[0]!.rows;
      // 1, 7, 49, 343, 2401 elements: fewer than the ranks at first, then none a multiple of 2.
      expect(rows.length).toBeGreaterThanOrEqual(4);
      for (const row of rows) {
        expect(row.outOfPlace.wrong).toBe(0);
        expect(row.inPlace.wrong).toBe(0);
      }
    },
  );

  it.each([4, 3])('-c 1 catches a wrong element under halving-doubling, %i ranks', async (nranks) => {
    // On 3 ranks rank 0 folds into rank 1 and waits: the damage is to the rank that folds.
    const results = await runInProcess(
      nranks,
      { ...baseParams, op: 'all_reduce', algo: 'halving-doubling' },
      { damage: { rank: nranks === 3 ? 0 : 2, kind: 'add' } },
    );
    for (const row of results[0]!.rows) expect(row.outOfPlace.wrong).toBe(1);
  });
});

describe('-c 1 catches corruption', () => {
  it('counts the damaged element in #wrong and out-of-bounds', async () => {
    const results = await runInProcess(
      3,
      { ...baseParams, op: 'all_reduce' },
      { damage: { rank: 1, kind: 'add' } },
    );
    const rows = results[0]!.rows;
    for (const row of rows) {
      expect(row.outOfPlace.wrong).toBe(1);
      expect(row.inPlace.wrong).toBe(1);
    }
    expect(results[0]!.outOfBounds).toBe(rows.length * 2);
  });
});

describe('halving-doubling partners', () => {
  it('pairs ranks farthest first, and all_reduce connects to them only when asked', () => {
    expect(halvingDoublingPartners(5, 8)).toEqual([1, 7, 4]);
    expect(halvingDoublingPartners(0, 2)).toEqual([1]);
    const peers = neededPeers('all_reduce', 0, 4, 'halving-doubling');
    expect(new Set(peers.sendTo)).toEqual(new Set([1, 2]));
    expect(new Set(peers.recvFrom)).toEqual(new Set([3, 2, 1]));
    expect(neededPeers('all_reduce', 0, 4, 'ring')).toEqual({ sendTo: [1], recvFrom: [3] });
    // auto: the partners on 4, 8... ranks, the ring's neighbours alone on 2, and on 3 unless crowded.
    expect(new Set(neededPeers('all_reduce', 0, 4).sendTo)).toEqual(new Set([1, 2]));
    expect(neededPeers('all_reduce', 0, 3)).toEqual({ sendTo: [1], recvFrom: [2] });
    expect(new Set(neededPeers('all_reduce', 0, 3, 'auto', true).recvFrom)).toEqual(new Set([1, 2]));
    expect(neededPeers('all_reduce', 0, 2)).toEqual({ sendTo: [1], recvFrom: [1] });
  });

  it("folds the ranks beyond a power of two into their odd neighbours (MPICH's pairing)", () => {
    // 6 = 4 + 2: ranks 0 and 2 hand their data to 1 and 3; 1, 3, 4, 5 hold places 0-3 of the 4-rank schedule.
    expect(halvingDoublingPartners(0, 6)).toEqual([1]);
    expect(halvingDoublingPartners(2, 6)).toEqual([3]);
    expect(halvingDoublingPartners(1, 6)).toEqual([0, 4, 3]);
    expect(halvingDoublingPartners(3, 6)).toEqual([2, 5, 1]);
    expect(halvingDoublingPartners(4, 6)).toEqual([1, 5]);
    expect(halvingDoublingPartners(2, 3)).toEqual([1]);
    expect(halvingDoublingPartners(1, 3)).toEqual([0, 2]);
  });

  it('auto runs halving-doubling on 4, 8... ranks up to 16 MiB, on other counts from 3 only where ranks crowd a host; a forced choice is kept', () => {
    expect(allReduceSchedule('auto', 4, 16 << 20)).toBe('halving-doubling');
    expect(allReduceSchedule('auto', 8, 4)).toBe('halving-doubling');
    expect(allReduceSchedule('auto', 4, (16 << 20) + 4)).toBe('ring');
    expect(allReduceSchedule('auto', 6, 1 << 20)).toBe('ring');
    expect(allReduceSchedule('auto', 6, 1 << 20, true)).toBe('halving-doubling');
    expect(allReduceSchedule('auto', 3, 32 << 20, true)).toBe('ring');
    expect(allReduceSchedule('auto', 2, 1 << 20, true)).toBe('ring');
    expect(allReduceSchedule('ring', 8, 1 << 20)).toBe('ring');
    expect(allReduceSchedule('halving-doubling', 2, 1 << 30)).toBe('halving-doubling');
  });

  it('a host is crowded when it runs more ranks than its cores', () => {
    const rank = (host: string, cores: number) => ({ host, cores });
    expect(hostsCrowded([rank('a', 2), rank('a', 2), rank('a', 2)])).toBe(true);
    expect(hostsCrowded([rank('a', 2), rank('a', 2), rank('b', 2)])).toBe(false);
    expect(hostsCrowded([rank('a', 64), rank('a', 64), rank('a', 64)])).toBe(false);
    expect(hostsCrowded([rank('h0', 2), rank('h1', 2), rank('h2', 2)])).toBe(false);
  });
});
