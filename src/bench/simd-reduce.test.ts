import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reduceInto, typedView, ELEMENT_BYTES } from './datatypes.js';
import { createSimdArena } from './simd-reduce.js';
import { DATA_TYPES, REDUCE_OPS } from './types.js';

describe('SIMD reductions', () => {
  const arena = createSimdArena(1 << 20);

  it('compile and run here (Node 20 has WebAssembly SIMD)', () => {
    expect(arena).toBeDefined();
  });

  it.each(DATA_TYPES.flatMap((type) => REDUCE_OPS.map((op) => ({ type, op }))))(
    '$type $op: the vector part equals the scalar loop, at any offset and length',
    ({ type, op }) => {
      const size = ELEMENT_BYTES[type];
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 2000 }),
          fc.integer({ min: 0, max: 7 }),
          fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 8, maxLength: 8 }),
          (elements, offsetElements, seeds) => {
            const bytes = new Uint8Array(arena!.buffer);
            const region = (k: number): Uint8Array =>
              bytes.subarray(
                (k * 4096 + offsetElements) * size,
                (k * 4096 + offsetElements + elements) * size,
              );
            const [a, b, dst] = [region(0), region(1), region(2)];
            const ta = typedView(a, type);
            const tb = typedView(b, type);
            for (let i = 0; i < elements; i++) {
              ta[i] = type === 'int32' ? seeds[i % 8]! ^ (i * 2654435761) : ((seeds[i % 8]! % 1000) + i) / 8;
              tb[i] = type === 'int32' ? seeds[(i + 3) % 8]! + i : ((seeds[(i + 5) % 8]! % 777) - i) / 4;
            }
            const done = arena!.reduce(type, op, dst, a, b);
            expect(done).toBe(elements * size - ((elements * size) % 16));
            const expected = typedView(new Uint8Array(elements * size), type);
            reduceInto(expected, ta, tb, op);
            const got = typedView(dst, type);
            for (let i = 0; i < done / size; i++) expect(got[i]).toBe(expected[i]);
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it.each(['float', 'double'] as const)(
    '%s min and max treat +0/-0 and NaN exactly as the scalar loop',
    (type) => {
      const size = ELEMENT_BYTES[type];
      const bytes = new Uint8Array(arena!.buffer);
      const pairs: [number, number][] = [
        [0, -0],
        [-0, 0],
        [NaN, 1],
        [1, NaN],
        [NaN, NaN],
        [2, 2],
        [-1, 3],
        [3, -1],
      ];
      const n = 16; // whole vectors for both types
      const [a, b, dst] = [0, 1, 2].map((k) => bytes.subarray(k * 4096, k * 4096 + n * size));
      const ta = typedView(a!, type);
      const tb = typedView(b!, type);
      for (let i = 0; i < n; i++) [ta[i], tb[i]] = pairs[i % pairs.length]!;
      for (const op of ['max', 'min'] as const) {
        expect(arena!.reduce(type, op, dst!, a!, b!)).toBe(n * size);
        const expected = typedView(new Uint8Array(n * size), type);
        reduceInto(expected, ta, tb, op);
        expect([...typedView(dst!, type)]).toEqual([...expected]);
        for (let i = 0; i < n; i++) expect(Object.is(typedView(dst!, type)[i], expected[i])).toBe(true);
      }
    },
  );

  it('leaves views outside its memory to the scalar loop', () => {
    const outside = new Uint8Array(64);
    expect(arena!.reduce('float', 'sum', outside, outside, outside)).toBe(0);
  });

  it('declines a memory above 4 GiB (wasm32)', () => {
    expect(createSimdArena(5 * 1024 ** 3)).toBeUndefined();
  });
});
