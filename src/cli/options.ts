/** Commander argument parsers that turn our unit forms into numbers, naming the flag on error. */
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../core/errors.js';
import { parseDuration, parseRate, parseSize } from '../core/units.js';
import { DEFAULT_NCCL_VERSION, isNcclVersion } from '../core/nccl-version.js';

/**
 * The option values a command's build function declares, as commander's typings infer them: an
 * action file takes `OptionsOf<typeof buildCheck>` instead of re-declaring each flag's type.
 */
export type OptionsOf<Build extends (...args: never[]) => { opts(): unknown }> = ReturnType<
  ReturnType<Build>['opts']
>;

export const sizeArg =
  (flag: string) =>
  (value: string): number =>
    parseSize(value, flag);
/** A rate above 0: a link of 0 b/s never delivers, so no prediction or emulation can use it. */
export function rateArg(flag: string) {
  return (value: string): number => {
    const bitsPerSecond = parseRate(value, flag);
    if (!(bitsPerSecond > 0))
      throw new UsageError(`invalid rate for ${flag}: "${value}" (a rate must be above 0)`);
    return bitsPerSecond;
  };
}
export const durationArg =
  (flag: string) =>
  (value: string): number =>
    parseDuration(value, flag);

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
    throw new UsageError(
      `invalid value for ${flag}: "${value}" (expected at most ${bounds.max}${bounds.unit ? ` ${bounds.unit}` : ''})`,
    );
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
      throw new UsageError(
        `invalid value for ${flag}: "${value}" (expected a whole multiplication factor of at least 2, as nccl-tests -f; -i takes a fixed increment)`,
      );
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
    if (!match)
      throw new UsageError(`invalid value for ${flag}: "${value}" (expected one of ${choices.join(', ')})`);
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

/** `--set SCOPE.FIELD=VALUE`, repeatable: the texts in order (read in the action, which loads the schemas). */
export function collectArg(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** `--gdr on|off` (true/false too). */
export function onOffArg(flag: string) {
  return (value: string): boolean => {
    const lower = value.trim().toLowerCase();
    if (lower === 'on' || lower === 'true') return true;
    if (lower === 'off' || lower === 'false') return false;
    throw new UsageError(`invalid value for ${flag}: "${value}" (expected on or off)`);
  };
}

/** `gen5x16`: a PCIe generation (3 to 7) and link width, as `lspci -vv` reports `Speed 32GT/s, Width x16`. */
export function pcieLinkArg(flag: string) {
  return (value: string): { pcieGen: number; pcieLanes: number } => {
    const match = /^\s*gen([3-7])\s*x\s*(1|2|4|8|16)\s*$/i.exec(value);
    if (!match)
      throw new UsageError(
        `invalid value for ${flag}: "${value}" (expected genNxW with generation 3 to 7 and width 1, 2, 4, 8 or 16, e.g. gen5x16)`,
      );
    return { pcieGen: Number(match[1]), pcieLanes: Number(match[2]) };
  };
}

/**
 * A byte rate in GB/s from `900GB/s` or `7200Gbps`; 0 allowed (no NVLink). As `--bandwidth`, a bare
 * number other than 0 is refused: bits or bytes must be said.
 */
export function gigabytesPerSecondArg(flag: string) {
  return (value: string): number => {
    if (/^\s*0+(\.0*)?\s*$/.test(value)) return 0;
    const gigabytes = parseRate(value, flag) / 8e9;
    if (!Number.isFinite(gigabytes))
      throw new UsageError(
        `invalid rate for ${flag}: "${value}" (expected a rate such as 900GB/s or 7200Gbps)`,
      );
    return gigabytes;
  };
}

/** An NCCL version X.Y (or X.Y.Z) of the 2.x line, as NCCL's log prints it. */
export function ncclVersionArg(flag: string) {
  return (value: string): string => {
    const text = value.trim();
    if (!isNcclVersion(text))
      throw new UsageError(
        `invalid value for ${flag}: "${value}" (expected an NCCL version X.Y such as ${DEFAULT_NCCL_VERSION}, or X.Y.Z)`,
      );
    return text;
  };
}

export const SET_HELP =
  'set one field of the GPU, fabric or cluster: gpu.FIELD=VALUE, fabric.FIELD=VALUE (fabric.tcp.FIELD too), cluster.FIELD=VALUE, ' +
  "in the field's unit or with one (fabric.lineRateGbps=200, gpu.hbmBandwidthTBps=4.8TB/s, fabric.perMessageLatencyUs=3us); repeatable";

/**
 * The hardware and NCCL flags `collective`, `plan`, `compare` and `scale` share, declared once.
 * `--nccl-version` has no commander default so a cluster file's `ncclVersion` can apply; help says the default.
 */
export function addHardwareOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  GlobalOpts extends OptionValues,
>(command: Command<Args, Opts, GlobalOpts>, ncclDefaultHelp: string) {
  return command
    .option(
      '--gdr <on|off>',
      "GPUDirect RDMA on or off (on takes effect only where the fabric allows it; default: the fabric's)",
      onOffArg('--gdr'),
    )
    .option(
      '--pcie <genNxW>',
      "the GPU's PCIe link, generation 3 to 7 and width (e.g. gen4x16), overriding the GPU preset",
      pcieLinkArg('--pcie'),
    )
    .option(
      '--nvlink-bandwidth <rate>',
      'NVLink bandwidth per GPU, both directions together (e.g. 900GB/s, 7200Gbps; 0 for none), overriding the GPU preset',
      gigabytesPerSecondArg('--nvlink-bandwidth'),
    )
    .option(
      '--nccl-version <X.Y>',
      `NCCL version whose tuning the model applies (${ncclDefaultHelp})`,
      ncclVersionArg('--nccl-version'),
    )
    .option('--set <field=value>', SET_HELP, collectArg);
}
