import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/sim/engine/event-queue.js';
import { serializationPs } from '../../src/sim/engine/time.js';

describe('EventQueue', () => {
  it('pops by time, then by insertion order, across growth', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 3000 }), (times) => {
        const q = new EventQueue(2);
        times.forEach((t, i) => q.push(t, 1, i));
        const expected = times.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t || a.i - b.i);
        for (const e of expected) {
          expect(q.pop()).toBe(true);
          expect(q.time).toBe(e.t);
          expect(q.payload).toBe(e.i);
        }
        expect(q.pop()).toBe(false);
      }),
      { numRuns: 50 },
    );
  });

  it('keeps order when pushes interleave with pops', () => {
    const q = new EventQueue(4);
    q.push(10, 1, 0);
    q.push(5, 2, 1);
    expect(q.pop() && q.payload).toBe(1);
    q.push(10, 3, 2);
    q.push(7, 4, 3);
    const order: number[] = [];
    while (q.pop()) order.push(q.payload);
    expect(order).toEqual([3, 0, 2]);
  });
});

describe('time', () => {
  it('serialises in whole picoseconds: 1500 B at 100 Gb/s is 120 ns, 1 B at 400 Gb/s is 20 ps', () => {
    expect(serializationPs(1500, 100e9)).toBe(120_000);
    expect(serializationPs(1, 400e9)).toBe(20);
  });
});
