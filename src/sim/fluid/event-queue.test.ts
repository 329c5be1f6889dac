import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FluidEventQueue } from './event-queue.js';

/** Drains the queue: [time, a, b] in the order the engine would see them. */
function drain(queue: FluidEventQueue): [number, number, number][] {
  const out: [number, number, number][] = [];
  while (!queue.isEmpty) {
    const time = queue.peekTime();
    let event = queue.popBucket();
    while (event >= 0) {
      out.push([time, queue.a(event), queue.b(event)]);
      const next = queue.next(event);
      queue.release(event);
      event = next;
    }
  }
  return out;
}

describe('FluidEventQueue', () => {
  it('returns every event by time, and events of equal time in the order they were pushed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 8 }),
        (times, capacity) => {
          const queue = new FluidEventQueue(capacity); // tiny capacities exercise growth
          times.forEach((time, i) => queue.push(time, i, -1));
          const expected = times
            .map((time, i) => [time, i, -1])
            .sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
          expect(drain(queue)).toEqual(expected);
        },
      ),
    );
  });

  it('accepts pushes while a bucket is being drained, as the engine does', () => {
    const queue = new FluidEventQueue(2);
    queue.push(5, 1, 0);
    queue.push(5, 2, 0);
    const seen: number[] = [];
    let event = queue.popBucket();
    while (event >= 0) {
      seen.push(queue.a(event));
      const next = queue.next(event);
      queue.release(event);
      queue.push(5, 10 + seen.length, 0); // same time, after the popped bucket: a new bucket
      queue.push(7, 20 + seen.length, 0);
      event = next;
    }
    expect(seen).toEqual([1, 2]);
    expect(drain(queue).map(([time, a]) => [time, a])).toEqual([
      [5, 11],
      [5, 12],
      [7, 21],
      [7, 22],
    ]);
  });
});
