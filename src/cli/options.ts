/** Commander argument parsers that turn our unit forms into numbers, naming the flag on error. */
import { UsageError } from '../core/errors.js';
import { parseDuration, parseRate, parseSize } from '../core/units.js';

export const sizeArg = (flag: string) => (value: string): number => parseSize(value, flag);
export const rateArg = (flag: string) => (value: string): number => parseRate(value, flag);
export const durationArg = (flag: string) => (value: string): number => parseDuration(value, flag);

export function positiveIntArg(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) {
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected a whole number of at least 1)`);
    }
    return parsed;
  };
}

export function nonNegativeIntArg(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(parsed)) {
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected a whole number of 0 or more)`);
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

/** `1,2,4,8` or `1..1024` (powers of two) into numbers. */
export function intListArg(flag: string) {
  return (value: string): number[] => {
    const range = /^\s*(\d+)\s*\.\.\s*(\d+)\s*$/.exec(value);
    if (range) {
      const start = Number(range[1]);
      const end = Number(range[2]);
      if (start < 1 || end < start) throw new UsageError(`invalid range for ${flag}: "${value}" (expected A..B with 1 <= A <= B)`);
      const values: number[] = [];
      for (let n = start; n <= end; n *= 2) values.push(n);
      return values;
    }
    return value.split(',').map((item) => positiveIntArg(flag)(item.trim()));
  };
}

export function listArg(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
