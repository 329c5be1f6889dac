/**
 * One contract for the simulator's event queues (the packet engine's calendar EventQueue, with
 * its default buckets and with tiny ones that push most events through its far heap, that
 * EventHeap alone, and the fluid engine's bucketed FluidEventQueue), in the manner of hono's and pure-rand's shared suites: events
 * leave in order of time, then of insertion; the arrays grow from a capacity of 2 without losing or
 * reordering anything; events pushed while the queue is being drained (at the current time or later)
 * take their place in that same order. Each queue is driven through a small adapter.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventHeap } from '../../src/sim/engine/event-heap.js';
import { EventQueue, type CalendarOptions } from '../../src/sim/engine/event-queue.js';
import { FluidEventQueue } from '../../src/sim/fluid/event-queue.js';

interface QueueUnderTest {
  push(time: number, payload: number): void;
  /** Pops every event in order; `onPop` may push more. */
  drain(onPop: (time: number, payload: number) => void): void;
}

const calendar = (options: CalendarOptions) => (): QueueUnderTest => {
  const q = new EventQueue(2, options);
  return {
    push: (time, payload) => q.push(time, 1, payload),
    drain: (onPop) => {
      while (q.pop()) {
        expect(q.type).toBe(1);
        onPop(q.time, q.payload);
      }
    },
  };
};

const queues: Record<string, () => QueueUnderTest> = {
  EventQueue: calendar({}),
  // Buckets of 1 ps and a window of 32: most events start beyond the window, in the heap, and
  // move into buckets as the window reaches them; the window wraps round several times.
  'EventQueue (a 32 ps window)': calendar({ bucketPs: 1, buckets: 32 }),
  // Buckets of 3 ps: several times in one bucket's sorted list, out of insertion order.
  'EventQueue (3 ps buckets)': calendar({ bucketPs: 3, buckets: 64 }),
  EventHeap: () => {
    const q = new EventHeap(1);
    let order = 0;
    return {
      push: (time, payload) => q.push(time, order++, payload),
      drain: (onPop) => {
        while (q.pop()) onPop(q.time, q.item);
      },
    };
  },
  FluidEventQueue: () => {
    const q = new FluidEventQueue(2);
    return {
      push: (time, payload) => q.push(time, payload, 0),
      drain: (onPop) => {
        while (!q.isEmpty) {
          const time = q.peekTime();
          let event = q.popBucket();
          while (event >= 0) {
            const payload = q.a(event);
            const next = q.next(event);
            q.release(event);
            onPop(time, payload);
            event = next;
          }
        }
      },
    };
  },
};

/** The order the contract asks for, by a plain list: least time first, then first inserted. */
function reference(initial: number[], follow: (time: number, payload: number) => [number, number] | null) {
  const pending = initial.map((time, payload) => ({ time, payload, seq: payload }));
  let seq = pending.length;
  const out: [number, number][] = [];
  while (pending.length > 0) {
    let best = 0;
    for (let i = 1; i < pending.length; i++) {
      const a = pending[i]!;
      const b = pending[best]!;
      if (a.time < b.time || (a.time === b.time && a.seq < b.seq)) best = i;
    }
    const [event] = pending.splice(best, 1);
    out.push([event!.time, event!.payload]);
    const more = follow(event!.time, event!.payload);
    if (more) pending.push({ time: more[0], payload: more[1], seq: seq++ });
  }
  return out;
}

for (const [name, make] of Object.entries(queues)) {
  describe(`${name} (event queue contract)`, () => {
    it('pops by time, then by insertion order, across growth from capacity 2', () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 3000, size: 'max' }),
          (times) => {
            const q = make();
            times.forEach((time, payload) => q.push(time, payload));
            const popped: [number, number][] = [];
            q.drain((time, payload) => popped.push([time, payload]));
            // Array.prototype.sort is stable: equal times keep insertion order.
            const expected = times
              .map((time, payload): [number, number] => [time, payload])
              .sort((a, b) => a[0] - b[0]);
            expect(popped).toEqual(expected);
          },
        ),
        { numRuns: 20 },
      );
    });

    it('places events pushed while draining, at the current time or later, in the same order', () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 300, size: 'max' }),
          fc.array(fc.constantFrom(0, 0, 1, 3, 7), { minLength: 1, maxLength: 50 }),
          (times, delays) => {
            const n = times.length;
            // Each original event schedules one follow-up (delay 0 = the time being drained); follow-ups schedule none.
            const follow = (time: number, payload: number): [number, number] | null =>
              payload < n ? [time + delays[payload % delays.length]!, n + payload] : null;
            const q = make();
            times.forEach((time, payload) => q.push(time, payload));
            const popped: [number, number][] = [];
            q.drain((time, payload) => {
              popped.push([time, payload]);
              const more = follow(time, payload);
              if (more) q.push(more[0], more[1]);
            });
            expect(popped).toEqual(reference(times, follow));
          },
        ),
        { numRuns: 40 },
      );
    });

    it('is empty after draining and usable again', () => {
      const q = make();
      q.push(5, 1);
      q.drain(() => undefined);
      q.push(3, 2);
      q.push(3, 3);
      const popped: number[] = [];
      q.drain((_time, payload) => popped.push(payload));
      expect(popped).toEqual([2, 3]);
    });
  });
}
