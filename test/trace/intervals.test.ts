/** Interval arithmetic behind T_compute and exposed communication, on hand-worked lists. */
import { describe, expect, it } from 'vitest';
import {
  clipIntervals,
  intervalLength,
  lastEndAtOrBefore,
  median,
  mergeIntervals,
  subtractIntervals,
} from '../../src/trace/intervals.js';

describe('trace intervals', () => {
  it('merges overlapping, touching and unsorted intervals', () => {
    expect(mergeIntervals([10, 20, 0, 5, 4, 8, 20, 25, 30, 30])).toEqual([0, 8, 10, 25]);
  });
  it('clips to a window', () => {
    expect(clipIntervals([0, 8, 10, 25], 5, 12)).toEqual([5, 8, 10, 12]);
    expect(clipIntervals([0, 8], 8, 12)).toEqual([]);
  });
  it('subtracts: time in a with nothing of b', () => {
    // a: [0,10] [20,30]; b: [2,4] [8,22] [25,26] -> [0,2] [4,8] [22,25] [26,30]
    expect(subtractIntervals([0, 10, 20, 30], [2, 4, 8, 22, 25, 26])).toEqual([0, 2, 4, 8, 22, 25, 26, 30]);
    expect(subtractIntervals([0, 10], [])).toEqual([0, 10]);
    expect(subtractIntervals([0, 10], [0, 10])).toEqual([]);
    expect(intervalLength([0, 2, 4, 8, 22, 25, 26, 30])).toBe(13);
  });
  it('finds where compute ended before a moment', () => {
    expect(lastEndAtOrBefore([0, 5, 10, 15], 12)).toBe(12); // busy through 12
    expect(lastEndAtOrBefore([0, 5, 10, 15], 9)).toBe(5);
    expect(lastEndAtOrBefore([10, 15], 9)).toBeNull();
  });
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
