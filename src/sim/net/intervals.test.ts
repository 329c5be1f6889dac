import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unionLength } from './intervals.js';

describe('unionLength', () => {
  it('counts overlapping stretches once, and nested and touching ones too', () => {
    expect(unionLength([0, 5], [10, 15])).toBe(15);
    expect(unionLength([0, 2], [10, 4])).toBe(10);
    expect(unionLength([0, 10], [10, 20])).toBe(20);
    expect(unionLength([30, 0], [40, 10])).toBe(20);
    expect(unionLength([5], [5])).toBe(0);
    expect(unionLength([], [])).toBe(0);
  });

  it('equals a unit-by-unit count on integer intervals, and never exceeds their span or sum', () => {
    const interval = fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 20 }));
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 12 }), (pairs) => {
        const starts = pairs.map(([s]) => s);
        const ends = pairs.map(([s, len]) => s + len);
        const covered = new Set<number>();
        pairs.forEach(([s, len]) => {
          for (let t = s; t < s + len; t++) covered.add(t);
        });
        const union = unionLength(starts, ends);
        expect(union).toBe(covered.size);
        expect(union).toBeLessThanOrEqual(pairs.reduce((a, [, len]) => a + len, 0));
      }),
    );
  });
});
