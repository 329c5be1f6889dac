/**
 * `-c 1` cannot miss (issue 9, part 3): one rank damages its result as a transport bug would
 * (a single flipped bit, a slice shifted by one element, a slice left over from the previous
 * iteration) and the check must count exactly the damaged elements, for every op. The check
 * values are built so that each of these always changes the elements it touches (src/bench/fill.ts).
 */
import { describe, expect, it } from 'vitest';
import { BENCH_OPS, DAMAGE_KINDS } from '../../src/bench/index.js';
import { fillInput, inputValue, reducedValue } from '../../src/bench/fill.js';
import { baseParams, runInProcess } from './helpers.js';
import { runCli } from '../helpers/run-cli.js';

describe('check values make every damage visible', () => {
  it('neighbouring elements and consecutive rounds always differ, for every op and up to 16 ranks', () => {
    for (let nranks = 1; nranks <= 16; nranks++) {
      for (const op of ['sum', 'max', 'min'] as const) {
        for (let seed = 1; seed <= 4; seed++) {
          for (let i = 0; i < 34; i++) {
            const now = reducedValue(i, nranks, op, 'float', seed);
            expect(now).not.toBe(reducedValue(i, nranks, op, 'float', seed + 1));
            if (op === 'sum') expect(now).not.toBe(reducedValue(i + 1, nranks, op, 'float', seed));
          }
        }
      }
    }
    for (let i = 0; i < 34; i++) expect(inputValue(3, i, 1)).not.toBe(inputValue(3, i + 1, 1));
    const view = new Float32Array(5);
    fillInput(view, 2, 7);
    expect([...view]).toEqual([0, 1, 2, 3, 4].map((i) => inputValue(2, i, 7)));
  });
});

const sized = { ...baseParams, minBytes: 4 * 4099, maxBytes: 4 * 4099, sockets: 1 };

describe.each(BENCH_OPS)('%s: -c 1 counts the damaged elements', (op) => {
  it.each(DAMAGE_KINDS)('%s', async (kind) => {
    const nranks = 3;
    const damageRank = op === 'reduce' ? nranks - 1 : 1;
    const results = await runInProcess(
      nranks,
      { ...sized, op, root: nranks - 1 },
      { sliceBytes: 2048, damage: { rank: damageRank, kind } },
    );
    const [row] = results[0]!.rows;
    const outElements = op === 'all_gather' || op === 'alltoall' ? row!.count * nranks : row!.count;
    const sliceLength = Math.floor((5 * outElements) / 8) - Math.floor((3 * outElements) / 8);
    const expected = kind === 'add' || kind === 'flip' ? 1 : sliceLength;
    for (const cell of [row!.outOfPlace, row!.inPlace]) {
      if (kind === 'shift' && (op === 'reduce' || op === 'all_reduce' || op === 'reduce_scatter')) {
        // A sum's neighbours always differ; the test sweep uses sum.
        expect(cell.wrong).toBe(expected);
      } else if (
        kind === 'unwritten' &&
        (op === 'all_gather' || op === 'alltoall') &&
        cell === row!.inPlace
      ) {
        // The damaged middle slice is rank 1's own block, which in place is never received: what
        // it held before the collective is its right value, so there is nothing to catch.
        expect(cell.wrong).toBe(0);
      } else if (kind === 'unwritten' && op === 'reduce' && cell === row!.inPlace) {
        // Reduce in place at the root: its buffer held its own input, which is wrong everywhere.
        expect(cell.wrong).toBe(expected);
      } else if (
        kind === 'stale' &&
        cell === row!.inPlace &&
        op !== 'all_gather' &&
        op !== 'broadcast' &&
        op !== 'alltoall' &&
        op !== 'sendrecv'
      ) {
        // In place, the previous iteration's result is itself damaged data: at least one element shows.
        expect(cell.wrong).toBeGreaterThan(0);
      } else {
        expect(cell.wrong).toBe(expected);
      }
    }
    const untouchedInPlace = kind === 'unwritten' && (op === 'all_gather' || op === 'alltoall');
    expect(results[0]!.outOfBounds).toBe(untouchedInPlace ? 1 : 2);
  });
});

describe('through the CLI', () => {
  it.each(['flip', 'shift', 'stale', 'unwritten'])(
    'AIFABRIC_BENCH_CORRUPT=1:%s exits 1 with FAILED',
    async (kind) => {
      const run = await runCli(
        [
          'bench',
          'tcp',
          '--np',
          '3',
          '--op',
          'all_reduce',
          '-b',
          '4M',
          '-e',
          '4M',
          '-n',
          '1',
          '-w',
          '0',
          '-c',
          '1',
        ],
        {
          env: { AIFABRIC_BENCH_CORRUPT: `1:${kind}` },
        },
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/# Out of bounds values : 2 FAILED/);
    },
  );
});
