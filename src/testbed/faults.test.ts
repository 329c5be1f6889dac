/**
 * `--fault` parsing and validation, and the classic BPF loss program: decoded and run by a small
 * interpreter of the four instructions it may use, so the threshold and the unsigned compare are
 * checked without a kernel.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../core/index.js';
import { formatBitRate, lossBytecode, parseFault, portFaults, validateFaults } from './faults.js';

/** Runs tc's `N,op jt jf k,...` form of classic BPF with `random` as the value of `ld #rand`. */
function runClassicBpf(bytecode: string, random: number): number {
  const [count, ...rest] = bytecode.split(',');
  const program = rest.map((text) => text.split(' ').map(Number) as [number, number, number, number]);
  expect(program).toHaveLength(Number(count));
  let accumulator = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const [op, jt, jf, k] = program[pc]!;
    if (op === 0x20) {
      expect(k).toBe(0xfffff038); // SKF_AD_OFF + SKF_AD_RANDOM
      accumulator = random;
    } else if (op === 0x35) pc += accumulator >>> 0 >= k >>> 0 ? jt : jf;
    else if (op === 0x06) return k;
    else throw new Error(`unexpected opcode ${op}`);
  }
  throw new Error('fell off the end');
}

describe('parseFault', () => {
  it('reads loss and rate', () => {
    expect(parseFault('h1:loss=0.01')).toMatchObject({ host: 1, kind: 'loss', value: 0.01 });
    expect(parseFault('h12:rate=250Mbps')).toMatchObject({ host: 12, kind: 'rate', value: 250e6 });
    expect(parseFault('h0:rate=1gbit')).toMatchObject({ host: 0, kind: 'rate', value: 1e9 });
  });

  it.each([
    ['h1loss', /expected HOST:KIND=VALUE/],
    ['node1:loss=0.1', /unknown host "node1"/],
    ['h1:drop=0.1', /unknown kind "drop": expected one of loss, rate/],
    ['h1:loss=0', /above 0 and below 1/],
    ['h1:loss=1', /above 0 and below 1/],
    ['h1:loss=-0.1', /above 0 and below 1/],
    ['h1:loss=1%', /above 0 and below 1/],
    ['h1:rate=fast', /not a rate/],
  ])('%s is refused', (text, message) => {
    expect(() => parseFault(text)).toThrow(UsageError);
    expect(() => parseFault(text)).toThrow(message);
  });
});

describe('validateFaults', () => {
  it('checks hosts, duplicates and the rate bound, and sorts', () => {
    const faults = ['h2:rate=250Mbps', 'h1:loss=0.01', 'h1:rate=100M'].map(parseFault);
    expect(validateFaults(faults, 4, 1e9).map((f) => `${f.host}${f.kind}`)).toEqual(['1loss', '1rate', '2rate']);
    expect(() => validateFaults([parseFault('h4:loss=0.1')], 4, 1e9)).toThrow('"h4:loss=0.1" (unknown host h4: a 4-host testbed has h0..h3)');
    expect(() => validateFaults([parseFault('h1:rate=2G')], 4, 1e9)).toThrow('rate 2 Gbit/s is above --rate 1 Gbit/s');
    expect(() => validateFaults(['h1:loss=0.1', 'h1:loss=0.2'].map(parseFault), 4, 1e9)).toThrow('h1 has loss given twice');
    expect(validateFaults([parseFault('h1:rate=1G')], 4, 1e9)).toHaveLength(1);
  });

  it('gives each host its port faults', () => {
    const faults = validateFaults(['h2:rate=250Mbps', 'h1:loss=0.01', 'h1:rate=100M'].map(parseFault), 4, 1e9);
    expect(portFaults(faults, 0)).toBeUndefined();
    expect(portFaults(faults, 1)).toEqual({ lossFraction: 0.01, rateBps: 100e6 });
    expect(portFaults(faults, 2)).toEqual({ rateBps: 250e6 });
  });

  it('formats rates for people', () => {
    expect(formatBitRate(250e6)).toBe('250 Mbit/s');
    expect(formatBitRate(800e9)).toBe('800 Gbit/s');
  });
});

describe('lossBytecode', () => {
  it('is ld #rand, jge, ret 0, ret -1', () => {
    expect(lossBytecode(0.5)).toBe('4,32 0 0 4294963256,53 0 1 2147483648,6 0 0 0,6 0 0 4294967295');
    expect(lossBytecode(0.01)).toBe('4,32 0 0 4294963256,53 0 1 42949673,6 0 0 0,6 0 0 4294967295');
  });

  it('matches exactly the random values below fraction * 2^32 (unsigned)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }), fc.nat({ max: 2 ** 32 - 1 }), (fraction, random) => {
        const threshold = Math.round(fraction * 2 ** 32);
        const matched = runClassicBpf(lossBytecode(fraction), random) === 0xffffffff;
        expect(matched).toBe(random < Math.max(1, threshold));
      }),
    );
    // The edges: values with the top bit set are large, not negative.
    const program = lossBytecode(0.01);
    expect(runClassicBpf(program, 0)).toBe(0xffffffff);
    expect(runClassicBpf(program, 0x80000000)).toBe(0);
    expect(runClassicBpf(program, 0xffffffff)).toBe(0);
  });

  it('refuses fractions outside (0, 1)', () => {
    for (const fraction of [0, 1, -0.5, Number.NaN]) expect(() => lossBytecode(fraction)).toThrow(UsageError);
  });
});
