import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandHostlist } from '../../src/accept/hostlist.js';
import { InputError } from '../../src/core/errors.js';

describe('expandHostlist', () => {
  it('expands a zero-padded range as scontrol show hostnames does', () => {
    const hosts = expandHostlist('node[01-16]');
    expect(hosts).toHaveLength(16);
    expect(hosts[0]).toBe('node01');
    expect(hosts[9]).toBe('node10');
    expect(hosts[15]).toBe('node16');
  });

  it('keeps the width of the low bound, as Slurm does (strlen of lo)', () => {
    expect(expandHostlist('n[8-11]')).toEqual(['n8', 'n9', 'n10', 'n11']);
    expect(expandHostlist('n[098-101]')).toEqual(['n098', 'n099', 'n100', 'n101']);
  });

  it('expands lists of ranges and plain names, separated by commas, spaces or tabs', () => {
    expect(expandHostlist('a[1-3,5],b7')).toEqual(['a1', 'a2', 'a3', 'a5', 'b7']);
    expect(expandHostlist('h1,h2 h3\th4')).toEqual(['h1', 'h2', 'h3', 'h4']);
    expect(expandHostlist('gpu-a01')).toEqual(['gpu-a01']);
    expect(expandHostlist('')).toEqual([]);
  });

  it('expands several bracket groups as the cartesian product, last group fastest', () => {
    expect(expandHostlist('rack[1-2]-n[01-02]')).toEqual([
      'rack1-n01',
      'rack1-n02',
      'rack2-n01',
      'rack2-n02',
    ]);
  });

  it("with three groups follows Slurm's recursion: right-most prefix group outermost", () => {
    // _push_range_list recurses on strrchr(prefix, '['): b varies slowest, then a, then c.
    expect(expandHostlist('a[1-2]b[3-4]c[5-6]')).toEqual([
      'a1b3c5',
      'a1b3c6',
      'a2b3c5',
      'a2b3c6',
      'a1b4c5',
      'a1b4c6',
      'a2b4c5',
      'a2b4c6',
    ]);
  });

  it('keeps duplicates, as scontrol does', () => {
    expect(expandHostlist('a1,a[1-2]')).toEqual(['a1', 'a1', 'a2']);
  });

  it.each([
    ['node[01-', 5, "unclosed '['"],
    ['node]1', 5, "']' without '['"],
    ['node[a-b]', 6, 'expected a number'],
    ['node[5-1]', 6, 'runs backwards'],
    ['node[1-2]x', 10, 'after the last'],
    ['node[1[2]]', 7, "nested '['"],
    ['node[]', 6, 'expected a number'],
    ['node[-1]', 6, 'expected a number'],
    ['n[1,3--4]', 5, 'expected a number'],
    ['n[0-99999999]', 2, 'more than'],
  ])('rejects %s with its position', (expr, position, what) => {
    let caught: unknown;
    try {
      expandHostlist(expr);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputError);
    const message = (caught as Error).message;
    expect(message).toContain(`"${expr}"`);
    expect(message).toContain(`position ${position}`);
    expect(message).toContain(what);
  });

  it('property: a range expands to hi-lo+1 names, each prefix + padded number, in order', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 4 }),
        (prefix, lo, span, width) => {
          const loText = String(lo).padStart(width, '0');
          const hosts = expandHostlist(`${prefix}[${loText}-${lo + span}]`);
          expect(hosts).toHaveLength(span + 1);
          hosts.forEach((host, index) => {
            expect(host).toBe(prefix + String(lo + index).padStart(loText.length, '0'));
          });
        },
      ),
    );
  });

  it('property: never throws anything but InputError on garbage', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        try {
          expandHostlist(text);
        } catch (error) {
          expect(error).toBeInstanceOf(InputError);
        }
      }),
    );
  });
});
