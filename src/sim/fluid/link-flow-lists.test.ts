import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinkFlowLists } from './link-flow-lists.js';

describe('LinkFlowLists', () => {
  it('holds the same items as plain arrays through any adds and swap-removals, across moves and repacks', () => {
    // 30% removals, so the lists grow, outgrow their regions and fill the first pool.
    const kind = fc.oneof(
      { arbitrary: fc.constant('add' as const), weight: 7 },
      { arbitrary: fc.constant('remove' as const), weight: 3 },
    );
    const operation = fc.record({ link: fc.nat({ max: 1 }), kind, pick: fc.nat() });
    fc.assert(
      fc.property(fc.array(operation, { minLength: 2000, maxLength: 3000 }), (operations) => {
        const lists = new LinkFlowLists(2);
        const model: number[][] = [[], []];
        let next = 0;
        for (const { link, kind, pick } of operations) {
          const items = model[link]!;
          if (kind === 'remove' && items.length > 0) {
            const pos = pick % items.length;
            const last = items.pop()!;
            const expectedMoved = pos < items.length ? last : -1;
            if (pos < items.length) items[pos] = last;
            expect(lists.removeAt(link, pos)).toBe(expectedMoved);
          } else {
            expect(lists.add(link, next)).toBe(items.length);
            items.push(next++);
          }
        }
        expect(lists.pool.length).toBeGreaterThan(1024); // outgrew the first pool: repacked
        model.forEach((items, link) => {
          const start = lists.start[link]!;
          expect(Array.from(lists.pool.subarray(start, start + lists.count[link]!))).toEqual(items);
        });
      }),
      // Unshrunk counterexamples: shrinking 2,000-step histories takes minutes.
      { numRuns: 10, endOnFailure: true },
    );
  });
});
