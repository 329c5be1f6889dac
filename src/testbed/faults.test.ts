/**
 * `--fault` parsing and validation, and the classic BPF loss program: decoded and run by a small
 * interpreter of the four instructions it may use, so the threshold and the unsigned compare are
 * checked without a kernel.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../core/index.js';
import {
  describeFault,
  formatBitRate,
  formatFault,
  hostFault,
  lossBytecode,
  parseFault,
  portFaults,
  uplinkFault,
  validateFaults,
} from './faults.js';

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

  it("reads mtu, cpu and a leaf's uplink-rate", () => {
    expect(parseFault('h2:mtu=1400')).toMatchObject({ host: 2, kind: 'mtu', value: 1400 });
    expect(parseFault('h6:cpu=0.25')).toMatchObject({ host: 6, kind: 'cpu', value: 0.25 });
    expect(parseFault('h6:cpu=2')).toMatchObject({ host: 6, kind: 'cpu', value: 2 });
    expect(parseFault('leaf1:uplink-rate=50Mbps')).toEqual({
      leaf: 1,
      kind: 'uplink-rate',
      value: 50e6,
      given: 'leaf1:uplink-rate=50Mbps',
    });
  });

  it('writes each kind back in its canonical form, and for people', () => {
    const texts = [
      'h1:loss=0.01',
      'h2:rate=250Mbps',
      'h3:mtu=1400',
      'h4:cpu=0.25',
      'leaf1:uplink-rate=50mbit',
    ];
    expect(texts.map((text) => formatFault(parseFault(text)))).toEqual([
      'h1:loss=0.01',
      'h2:rate=250000000bit',
      'h3:mtu=1400',
      'h4:cpu=0.25',
      'leaf1:uplink-rate=50000000bit',
    ]);
    for (const text of texts)
      expect(formatFault(parseFault(formatFault(parseFault(text))))).toBe(formatFault(parseFault(text)));
    expect(texts.map((text) => describeFault(parseFault(text)))).toEqual([
      'h1 loses 1% of packets',
      'h2 at 250 Mbit/s',
      'h3 MTU 1400',
      'h4 capped at 0.25 cores',
      'leaf1 uplink at 50 Mbit/s',
    ]);
  });

  it.each([
    ['h1:mtu=100', /mtu must be a whole number of bytes from 576 to 9000/],
    ['h1:mtu=9001', /from 576 to 9000/],
    ['h1:mtu=1400.5', /whole number/],
    ['h1:cpu=0', /cpu must be a number of cores from 0.01 to 1024/],
    ['h1:cpu=-1', /cpu must be/],
    ['h1:cpu=half', /cpu must be/],
    ['h1:uplink-rate=1M', /unknown kind "uplink-rate"/],
    ['leaf1:rate=1M', /unknown kind "rate" for a leaf: expected uplink-rate/],
    ['leaf1:uplink-rate=quick', /not a rate/],
    ['spine:uplink-rate=1M', /unknown host "spine"/],
  ])('%s is refused', (text, message) => {
    expect(() => parseFault(text)).toThrow(UsageError);
    expect(() => parseFault(text)).toThrow(message);
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
    expect(validateFaults(faults, 4, 1e9).map((f) => `${'host' in f ? f.host : ''}${f.kind}`)).toEqual([
      '1loss',
      '1rate',
      '2rate',
    ]);
    expect(() => validateFaults([parseFault('h4:loss=0.1')], 4, 1e9)).toThrow(
      '"h4:loss=0.1" (unknown host h4: a 4-host testbed has h0..h3)',
    );
    expect(() => validateFaults([parseFault('h1:rate=2G')], 4, 1e9)).toThrow(
      'rate 2 Gbit/s is above --rate 1 Gbit/s',
    );
    expect(() => validateFaults(['h1:loss=0.1', 'h1:loss=0.2'].map(parseFault), 4, 1e9)).toThrow(
      'h1 has loss given twice',
    );
    expect(validateFaults([parseFault('h1:rate=1G')], 4, 1e9)).toHaveLength(1);
  });

  it('checks leaf faults against the leaves, and sorts hosts before leaves', () => {
    const context = { hosts: 6, portRateBps: 200e6, leaves: 2, uplinkRateBps: 50e6, bufferBytes: 131072 };
    const faults = validateFaults(
      ['leaf1:uplink-rate=20M', 'h4:cpu=0.5', 'h1:mtu=1400', 'leaf0:uplink-rate=10M'].map(parseFault),
      context,
    );
    expect(faults.map(formatFault)).toEqual([
      'h1:mtu=1400',
      'h4:cpu=0.5',
      'leaf0:uplink-rate=10000000bit',
      'leaf1:uplink-rate=20000000bit',
    ]);
    expect(uplinkFault(faults, 1)).toBe(20e6);
    expect(uplinkFault(faults, 2)).toBeUndefined();
    expect(hostFault(faults, 1, 'mtu')).toBe(1400);
    expect(hostFault(faults, 4, 'cpu')).toBe(0.5);
    // mtu and cpu need no extra hop in the switch: they are not port faults.
    expect(portFaults(faults, 1)).toBeUndefined();
    expect(() => validateFaults([parseFault('leaf0:uplink-rate=1M')], { ...context, leaves: 1 })).toThrow(
      'a leaf fault needs a two-tier testbed (--leaves 2 or more)',
    );
    expect(() => validateFaults([parseFault('leaf2:uplink-rate=1M')], context)).toThrow(
      'unknown leaf leaf2: a 2-leaf testbed has leaf0..leaf1',
    );
    expect(() => validateFaults([parseFault('leaf1:uplink-rate=60M')], context)).toThrow(
      'rate 60 Mbit/s is above --uplink-rate 50 Mbit/s: a fault can only slow an uplink',
    );
    expect(() =>
      validateFaults(['leaf1:uplink-rate=20M', 'leaf1:uplink-rate=10M'].map(parseFault), context),
    ).toThrow('leaf1 has uplink-rate given twice');
    expect(() => validateFaults([parseFault('h6:mtu=1400')], context)).toThrow('unknown host h6');
    expect(() => validateFaults([parseFault('h1:mtu=9000')], { ...context, bufferBytes: 8192 })).toThrow(
      'a 9014-byte frame does not fit in --buffer 8192 bytes',
    );
  });

  it('gives each host its port faults', () => {
    const faults = validateFaults(
      ['h2:rate=250Mbps', 'h1:loss=0.01', 'h1:rate=100M'].map(parseFault),
      4,
      1e9,
    );
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
      fc.property(
        fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }),
        fc.nat({ max: 2 ** 32 - 1 }),
        (fraction, random) => {
          const threshold = Math.round(fraction * 2 ** 32);
          const matched = runClassicBpf(lossBytecode(fraction), random) === 0xffffffff;
          expect(matched).toBe(random < Math.max(1, threshold));
        },
      ),
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
