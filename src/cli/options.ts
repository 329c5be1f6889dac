/** Commander argument parsers that turn our unit forms into numbers, naming the flag on error. */
import { UsageError } from '../core/errors.js';
import { parseDuration, parseRate, parseSize } from '../core/units.js';

export const sizeArg = (flag: string) => (value: string): number => parseSize(value, flag);
/** A rate above 0: a link of 0 b/s never delivers, so no prediction or emulation can use it. */
export function rateArg(flag: string) {
  return (value: string): number => {
    const bitsPerSecond = parseRate(value, flag);
    if (!(bitsPerSecond > 0)) throw new UsageError(`invalid rate for ${flag}: "${value}" (a rate must be above 0)`);
    return bitsPerSecond;
  };
}
export const durationArg = (flag: string) => (value: string): number => parseDuration(value, flag);

/**
 * A whole number as users write one: `1000000`, or in exponent notation `1e6`, `2.5e3`, when that
 * is a whole number. Undefined for anything else (signs, fractions, units, hex).
 */
export function parseWholeNumber(value: string): number | undefined {
  const text = value.trim();
  if (!/^(\d+|\d+(\.\d+)?e\+?\d+)$/i.test(text)) return undefined;
  const parsed = Number(text);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

export interface IntBounds {
  /** Largest value accepted; the error names it. */
  max?: number;
  /** What the number counts, for the error (`nodes`). */
  unit?: string;
}

function checkMax(flag: string, value: string, parsed: number, bounds: IntBounds): number {
  if (bounds.max !== undefined && parsed > bounds.max) {
    throw new UsageError(`invalid value for ${flag}: "${value}" (expected at most ${bounds.max}${bounds.unit ? ` ${bounds.unit}` : ''})`);
  }
  return parsed;
}

export function positiveIntArg(flag: string, bounds: IntBounds = {}) {
  return (value: string): number => {
    const parsed = parseWholeNumber(value);
    if (parsed === undefined || parsed < 1) {
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected a whole number of at least 1)`);
    }
    return checkMax(flag, value, parsed, bounds);
  };
}

export function nonNegativeIntArg(flag: string, bounds: IntBounds = {}) {
  return (value: string): number => {
    const parsed = parseWholeNumber(value);
    if (parsed === undefined) {
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected a whole number of 0 or more)`);
    }
    return checkMax(flag, value, parsed, bounds);
  };
}

/** nccl-tests -f: an integer multiplication factor of at least 2 (its strtol drops any fraction; we refuse it). */
export function stepFactorArg(flag: string) {
  return (value: string): number => {
    const parsed = parseWholeNumber(value);
    if (parsed === undefined || parsed < 2) {
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected a whole multiplication factor of at least 2, as nccl-tests -f; -i takes a fixed increment)`);
    }
    return parsed;
  };
}

export function positiveNumberArg(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0) {
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected a number above 0)`);
    }
    return parsed;
  };
}

export function choiceArg<T extends string>(flag: string, choices: readonly T[]) {
  return (value: string): T => {
    const match = choices.find((choice) => choice === value.toLowerCase());
    if (!match) throw new UsageError(`invalid value for ${flag}: "${value}" (expected one of ${choices.join(', ')})`);
    return match;
  };
}

/** `1,2,4,8` or `1..1024` (powers of two) into numbers, each within the bounds. */
export function intListArg(flag: string, bounds: IntBounds = {}) {
  return (value: string): number[] => {
    const range = /^\s*([^.\s]+)\s*\.\.\s*([^.\s]+)\s*$/.exec(value);
    if (range) {
      const start = parseWholeNumber(range[1] ?? '');
      const end = parseWholeNumber(range[2] ?? '');
      if (start === undefined || end === undefined || start < 1 || end < start) {
        throw new UsageError(`invalid range for ${flag}: "${value}" (expected A..B with 1 <= A <= B)`);
      }
      checkMax(flag, value, end, bounds);
      const values: number[] = [];
      for (let n = start; n <= end; n *= 2) values.push(n);
      return values;
    }
    return value.split(',').map((item) => positiveIntArg(flag, bounds)(item.trim()));
  };
}

export function listArg(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
