import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  formatDuration,
  formatRate,
  formatSize,
  parseDuration,
  parseRate,
  parseSize,
} from '../src/core/units.js';
import { UsageError } from '../src/core/errors.js';

describe('parseSize', () => {
  it.each([
    ['8', 8],
    ['128K', 131072],
    ['16M', 16 * 1024 ** 2],
    ['1G', 1024 ** 3],
    ['1g', 1024 ** 3],
    ['1GiB', 1024 ** 3],
    ['1GB', 1e9],
    ['4KB', 4000],
    ['2KiB', 2048],
    ['0', 0],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['-8', '12X', '', 'M', '1.5', '8 bytes'])('rejects %j naming the flag', (text) => {
    expect(() => parseSize(text, '-b')).toThrow(UsageError);
    expect(() => parseSize(text, '-b')).toThrow(/-b/);
  });

  it('round-trips through formatSize', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (bytes) => {
        expect(parseSize(formatSize(bytes))).toBe(bytes);
      }),
    );
  });

  it('formats as nccl-tests prints', () => {
    expect(formatSize(128 * 1024 ** 2)).toBe('128M');
    expect(formatSize(1000)).toBe('1000');
  });
});

describe('parseRate', () => {
  it.each([
    ['400Gbps', 400e9],
    ['400G', 400e9],
    ['400Gb/s', 400e9],
    ['50GB/s', 400e9],
    ['1gbit', 1e9],
    ['100mbit', 100e6],
    ['1GiB/s', 8 * 1024 ** 3],
    ['25Gbit', 25e9],
  ])('%s', (text, bits) => {
    expect(parseRate(text)).toBeCloseTo(bits, 3);
  });

  it.each(['400', 'fast', '-1G', '10GiB', '5 Gbps/s'])('rejects %j', (text) => {
    expect(() => parseRate(text, '--bandwidth')).toThrow(/--bandwidth.*400Gbps/);
  });

  it('round-trips through formatRate within 6 significant digits', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e13, noNaN: true }), (bits) => {
        expect(parseRate(formatRate(bits))).toBeCloseTo(bits, -Math.floor(Math.log10(bits)) + 4);
      }),
    );
  });
});

describe('parseDuration', () => {
  it.each([
    ['2us', 2e-6],
    ['200ms', 0.2],
    ['1s', 1],
    ['500ns', 5e-7],
    ['1.5µs', 1.5e-6],
  ])('%s', (text, seconds) => {
    expect(parseDuration(text)).toBeCloseTo(seconds, 15);
  });

  it.each(['2', 'soon', '-2us', '3h'])('rejects %j', (text) => {
    expect(() => parseDuration(text, '--alpha')).toThrow(/--alpha/);
  });

  it('formats back', () => {
    expect(formatDuration(0.2)).toBe('200ms');
    expect(formatDuration(2e-6)).toBe('2us');
    expect(parseDuration(formatDuration(0.0123))).toBeCloseTo(0.0123, 12);
  });
});
