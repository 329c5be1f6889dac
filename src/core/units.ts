/**
 * Units as our users type them. Sizes follow nccl-tests (`-b 8 -e 128M`: K/M/G are powers of 1024)
 * plus explicit IEC/SI suffixes; rates follow datasheets (`400Gbps`, `400G` are bits per second),
 * byte rates need `B/s` (`50GB/s`), and tc's `1gbit`/`100mbit` are accepted; durations take ns..s.
 * Internally: sizes in bytes, rates in bits per second, durations in seconds.
 */
import { UsageError } from './errors.js';

const SIZE_FORMS =
  'a byte count such as 8, 128K, 16M, 1G (powers of 1024, as nccl-tests), or 1KiB/1MiB/1GiB, 1KB/1MB/1GB (powers of 1000)';
const RATE_FORMS =
  "a rate such as 400Gbps, 400G, 400Gb/s (bits per second), 50GB/s (bytes per second) or tc's 1gbit/100mbit";
const DURATION_FORMS = 'a duration such as 500ns, 2us, 200ms or 1s';

const SIZE_MULTIPLIERS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

const DECIMAL_PREFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const BINARY_PREFIX: Record<string, number> = { ki: 1024, mi: 1024 ** 2, gi: 1024 ** 3, ti: 1024 ** 4 };

const DURATION_MULTIPLIERS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  ms: 1e-3,
  s: 1,
};

const NUMBER = '(\\d+(?:\\.\\d*)?|\\.\\d+)(?:e([+-]?\\d+))?';

function where(flag: string | undefined): string {
  return flag ? ` for ${flag}` : '';
}

function parseNumberAndSuffix(text: string): { value: number; suffix: string } | undefined {
  const match = new RegExp(`^\\s*${NUMBER}\\s*([a-zA-Zµ/]*)\\s*$`).exec(text);
  if (!match) return undefined;
  const mantissa = match[1] ?? '';
  const exponent = match[2] ?? '0';
  const value = Number(`${mantissa}e${exponent}`);
  if (!Number.isFinite(value)) return undefined;
  return { value, suffix: match[3] ?? '' };
}

/** Bytes from `8`, `128K`, `16M`, `1G`, `1GiB`, `1GB`. Throws UsageError naming the flag. */
export function parseSize(text: string, flag?: string): number {
  const parsed = parseNumberAndSuffix(String(text));
  const multiplier = parsed ? SIZE_MULTIPLIERS[parsed.suffix.toLowerCase()] : undefined;
  if (!parsed || multiplier === undefined) {
    throw new UsageError(`invalid size${where(flag)}: "${text}" (expected ${SIZE_FORMS})`);
  }
  const bytes = parsed.value * multiplier;
  if (!Number.isSafeInteger(Math.round(bytes)) || Math.abs(bytes - Math.round(bytes)) > 1e-6) {
    throw new UsageError(
      `invalid size${where(flag)}: "${text}" is not a whole number of bytes (expected ${SIZE_FORMS})`,
    );
  }
  return Math.round(bytes);
}

/** Bits per second from `400Gbps`, `400G`, `400Gb/s`, `50GB/s`, `50GiB/s`, `1gbit`, `100mbit`. */
export function parseRate(text: string, flag?: string): number {
  const parsed = parseNumberAndSuffix(String(text));
  const fail = (): never => {
    throw new UsageError(`invalid rate${where(flag)}: "${text}" (expected ${RATE_FORMS})`);
  };
  if (!parsed || parsed.value < 0) return fail();
  const suffix = parsed.suffix;
  // Byte rates: an upper-case B followed by /s (GB/s, GiB/s, MB/s, B/s).
  const bytes = /^([kKmMgGtT]i?)?B\/s$/.exec(suffix);
  if (bytes) {
    const prefix = (bytes[1] ?? '').toLowerCase();
    const factor = prefix.endsWith('i') ? BINARY_PREFIX[prefix] : DECIMAL_PREFIX[prefix];
    if (factor === undefined) return fail();
    return parsed.value * factor * 8;
  }
  // Bit rates: prefix then nothing, bps, b/s, bit or bits (any case, SI prefixes as on datasheets).
  // A bare number is refused: tc reads it as bytes, datasheets as bits, so the unit must be said.
  const bits = /^([kmgt]?)(bps|b\/s|bit|bits)?$/i.exec(suffix);
  if (bits && suffix !== '') {
    const factor = DECIMAL_PREFIX[(bits[1] ?? '').toLowerCase()];
    if (factor === undefined) return fail();
    return parsed.value * factor;
  }
  return fail();
}

/** Seconds from `500ns`, `2us`, `200ms`, `1s`. A bare number is rejected: the unit is required. */
export function parseDuration(text: string, flag?: string): number {
  const parsed = parseNumberAndSuffix(String(text));
  const multiplier = parsed ? DURATION_MULTIPLIERS[parsed.suffix.toLowerCase()] : undefined;
  if (!parsed || multiplier === undefined) {
    throw new UsageError(`invalid duration${where(flag)}: "${text}" (expected ${DURATION_FORMS})`);
  }
  return parsed.value * multiplier;
}

function trimNumber(value: number): string {
  return Number(value.toPrecision(6)).toString();
}

/** nccl-tests style: the largest power-of-1024 suffix that divides exactly, else plain bytes. */
export function formatSize(bytes: number): string {
  const units: [string, number][] = [
    ['T', 1024 ** 4],
    ['G', 1024 ** 3],
    ['M', 1024 ** 2],
    ['K', 1024],
  ];
  for (const [suffix, factor] of units) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${suffix}`;
  }
  return `${bytes}`;
}

/** Bytes for people to read: `512 B`, `2 MiB`, `1.5 GiB` (binary units, one decimal when not whole). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Bits per second as `400Gbps`, `1.5Mbps`. */
export function formatRate(bitsPerSecond: number): string {
  const units: [string, number][] = [
    ['Tbps', 1e12],
    ['Gbps', 1e9],
    ['Mbps', 1e6],
    ['Kbps', 1e3],
  ];
  for (const [suffix, factor] of units) {
    if (Math.abs(bitsPerSecond) >= factor) return `${trimNumber(bitsPerSecond / factor)}${suffix}`;
  }
  return `${trimNumber(bitsPerSecond)}bps`;
}

/** Seconds as `200ms`, `2us`, `1.5s`. */
export function formatDuration(seconds: number): string {
  const abs = Math.abs(seconds);
  if (abs >= 1 || abs === 0) return `${trimNumber(seconds)}s`;
  if (abs >= 1e-3) return `${trimNumber(seconds * 1e3)}ms`;
  if (abs >= 1e-6) return `${trimNumber(seconds * 1e6)}us`;
  return `${trimNumber(seconds * 1e9)}ns`;
}
