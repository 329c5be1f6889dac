/**
 * One contract for every row of the launch-environment table (src/bench/launch-env.ts, RANK_SOURCES:
 * Open MPI, PMI, Slurm, torchrun), so a launcher added to the table is tested by adding it: a full
 * pair gives that rank and size and names the launcher; half a pair is refused naming both variables
 * (Slurm's halves excepted: an salloc shell, a batch script's step); a rank not below the size and a value that
 * is not a whole number are refused; a row earlier in the table wins over a later one.
 */
import { describe, expect, it } from 'vitest';
import { detectLaunch, RANK_SOURCES } from '../../src/bench/launch-env.js';

describe('launcher contract: every row of the launch-environment table', () => {
  it('has the launchers aifabric documents', () => {
    expect(RANK_SOURCES.map((row) => row.source)).toEqual(['Open MPI', 'PMI', 'Slurm', 'torchrun']);
  });

  RANK_SOURCES.forEach((row, index) => {
    describe(row.source, () => {
      it(`reads ${row.rank} and ${row.size}`, () => {
        expect(detectLaunch({ [row.rank]: '2', [row.size]: '4' })).toMatchObject({
          rank: 2,
          size: 4,
          source: row.source,
          masterAddr: '127.0.0.1',
          masterPort: 29500,
        });
      });

      it('refuses half a pair, naming both variables', () => {
        if (row.source === 'Slurm') {
          // An salloc shell (SLURM_NTASKS, no task yet) and a batch script's step (SLURM_PROCID=0) are one rank.
          expect(detectLaunch({ [row.size]: '4' })).toMatchObject({ rank: 0, size: 1 });
          expect(detectLaunch({ [row.rank]: '0' })).toMatchObject({ rank: 0, size: 1 });
          return;
        }
        expect(() => detectLaunch({ [row.rank]: '1' })).toThrow(
          `${row.rank}=1 is set but ${row.size} is not`,
        );
        expect(() => detectLaunch({ [row.size]: '4' })).toThrow(
          `${row.size}=4 is set but ${row.rank} is not`,
        );
      });

      it('refuses a rank not below the size and a value that is not a whole number', () => {
        expect(() => detectLaunch({ [row.rank]: '4', [row.size]: '4' })).toThrow(
          `${row.rank}=4 is not below ${row.size}=4`,
        );
        expect(() => detectLaunch({ [row.rank]: 'x', [row.size]: '4' })).toThrow(
          `${row.rank}="x" is not a whole number`,
        );
      });

      it('wins over every later row', () => {
        const env: NodeJS.ProcessEnv = {};
        RANK_SOURCES.slice(index).forEach((other, k) => {
          env[other.rank] = String(k);
          env[other.size] = '8';
        });
        expect(detectLaunch(env)).toMatchObject({ rank: 0, size: 8, source: row.source });
      });
    });
  });
});
