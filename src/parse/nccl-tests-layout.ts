/**
 * Table layouts of nccl-tests and the parsing of one result row against a layout.
 *
 * Layouts, from NVIDIA/nccl-tests history:
 *  - before 2.13 each collective printed its own header (src/<coll>.cu print_header): key columns
 *    `size count type` plus `redop` (all_reduce, reduce_scatter, alltoall), `root` (broadcast) or
 *    both (reduce), none for all_gather; after each time/algbw/busbw triple an `error` column
 *    (max deviation, `%5.0le`, or `N/A` without -c).
 *  - 2.13+ (src/util.cu writeResultHeader): always `size count type redop root`, and `#wrong`
 *    (count of wrong elements, `%6g`, or `N/A`).
 *  - 2.19.2+ with `-I 1`: `i_min i_max i_p99 i_cv%` after each `#wrong`.
 *  - NCCL 1.x test programs: `bytes N type op time algbw busbw res`, time in milliseconds.
 *  - with timestamps: a trailing `timestamp` column (`YYYY-MM-DD hh:mm:ss`); `-C 1` prints `cputime`.
 * Blank key fields happen (old alltoall prints an empty redop), so keys are matched by shape.
 */
import { dataTypeBytes } from '../core/collectives.js';
import type { NcclTestsLayout, NcclTestsMeasurement, NcclTestsRow } from './nccl-tests-types.js';

const KEY_ALIASES: Record<string, 'size' | 'count' | 'type' | 'redop' | 'root'> = {
  size: 'size',
  bytes: 'size',
  count: 'count',
  n: 'count',
  type: 'type',
  redop: 'redop',
  op: 'redop',
  root: 'root',
};

/** Parse a column-header line (`#  size  count  type  redop  root  time  algbw ...`), or null if it is not one. */
export function parseColumnHeader(commentText: string): NcclTestsLayout | null {
  const tokens = commentText.split(/\s+/).filter((token) => token !== '' && token !== '#');
  const timeIndex = tokens.findIndex((token) => token === 'time' || token === 'cputime');
  if (timeIndex < 2 || !tokens.includes('algbw') || !tokens.includes('busbw')) return null;
  const keys = tokens.slice(0, timeIndex).map((token) => KEY_ALIASES[token.toLowerCase()]);
  if (keys[0] !== 'size' || keys.some((key) => key === undefined)) return null;
  const measures = tokens.slice(timeIndex);
  const checkColumn = measures.includes('#wrong') ? 'wrong' : 'error';
  const nccl1 = measures.includes('res') || tokens[0] === 'bytes';
  return {
    name: checkColumn === 'wrong' ? '2.13+' : nccl1 ? 'nccl-1.x' : 'pre-2.13',
    hasRedop: keys.includes('redop'),
    hasRoot: keys.includes('root'),
    checkColumn,
    perIteration: measures.includes('i_min'),
    timestamps: measures[measures.length - 1] === 'timestamp',
    cpuTime: tokens[timeIndex] === 'cputime',
    fromHeader: true,
  };
}

const INTEGER = /^\d+$/;
const SIGNED_INTEGER = /^-?\d+$/;
const IDENTIFIER = /^[A-Za-z_][\w]*$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME_OF_DAY = /^\d{2}:\d{2}:\d{2}$/;

/** Bytes per element of nccl-tests data types (src/common.cu test_typenames), from the collective vocabulary. */
export const typeSizeBytes = dataTypeBytes;

export type RowParse = { ok: true; row: NcclTestsRow } | { ok: false; reason: string };

function parseNumber(token: string | undefined): number | undefined {
  if (token === undefined || !NUMBER.test(token)) return undefined;
  const value = Number(token);
  return Number.isFinite(value) ? value : undefined;
}

function parseMeasurement(
  tokens: string[],
  start: number,
  knownCheckColumn: NcclTestsLayout['checkColumn'] | undefined,
  perIteration: boolean,
): NcclTestsMeasurement | string {
  const timeUs = parseNumber(tokens[start]);
  const algbwGBps = parseNumber(tokens[start + 1]);
  const busbwGBps = parseNumber(tokens[start + 2]);
  if (timeUs === undefined || algbwGBps === undefined || busbwGBps === undefined) {
    return `expected time, algbw and busbw numbers, got "${tokens.slice(start, start + 3).join(' ')}"`;
  }
  // nccl-tests never prints a negative time: one here is the root column (-1) of a row cut short,
  // read one column early. (A negative busbw is kept: `check` reports it as out of range at its line.)
  if (timeUs < 0) return `negative time "${tokens.slice(start, start + 3).join(' ')}" (row cut short?)`;
  const checkToken = tokens[start + 3];
  const checkValue = checkToken === 'N/A' ? null : parseNumber(checkToken);
  if (checkValue === undefined)
    return `expected #wrong or error (a number or N/A), got "${checkToken ?? ''}"`;
  // Without a header, the value's shape tells: `%6g` counts are integers, `%5.0le` errors carry an exponent.
  const checkColumn =
    knownCheckColumn ?? (checkToken !== undefined && /[.eE]/.test(checkToken) ? 'error' : 'wrong');
  const measurement: NcclTestsMeasurement =
    checkColumn === 'wrong'
      ? { timeUs, algbwGBps, busbwGBps, wrong: checkValue }
      : { timeUs, algbwGBps, busbwGBps, wrong: null, maxError: checkValue };
  if (perIteration) {
    const stats = [1, 2, 3, 4].map((offset) => parseNumber(tokens[start + 3 + offset]));
    const [minUs, maxUs, p99Us, cvPct] = stats;
    if (minUs === undefined || maxUs === undefined || p99Us === undefined || cvPct === undefined) {
      return 'expected i_min, i_max, i_p99 and i_cv% numbers';
    }
    measurement.perIteration = { minUs, maxUs, p99Us, cvPct };
  }
  return measurement;
}

/**
 * Parse one data line. With a layout from a header the column count is known; without one
 * (the header was cut off) the row's own shape decides. Rows that do not add up are rejected
 * rather than guessed: rows[] must hold complete rows only.
 */
export function parseRow(text: string, line: number, layout: NcclTestsLayout | null): RowParse {
  const tokens = text.split(/\s+/);
  let timestamp: string | undefined;
  const last = tokens[tokens.length - 1];
  const beforeLast = tokens[tokens.length - 2];
  if (last !== undefined && beforeLast !== undefined && TIME_OF_DAY.test(last) && DATE.test(beforeLast)) {
    timestamp = `${beforeLast} ${last}`;
    tokens.length -= 2;
  }
  // Without a header: 3 to 5 key fields plus 2 x 4 measurements, or 2 x 8 with per-iteration columns.
  const perIteration = layout ? layout.perIteration : tokens.length >= 19 && tokens.length <= 21;
  const perHalf = perIteration ? 8 : 4;
  const keyCount = tokens.length - 2 * perHalf;
  if (keyCount < 3) return { ok: false, reason: `only ${tokens.length} fields (row cut short?)` };
  const maxKeys = layout ? 3 + (layout.hasRedop ? 1 : 0) + (layout.hasRoot ? 1 : 0) : 5;
  if (keyCount > maxKeys) return { ok: false, reason: `${tokens.length} fields, more than the layout has` };
  const [sizeToken, countToken, type] = tokens;
  if (sizeToken === undefined || !INTEGER.test(sizeToken))
    return { ok: false, reason: `size "${sizeToken ?? ''}" is not a whole number` };
  if (countToken === undefined || !INTEGER.test(countToken))
    return { ok: false, reason: `count "${countToken ?? ''}" is not a whole number` };
  if (type === undefined || !IDENTIFIER.test(type))
    return { ok: false, reason: `type "${type ?? ''}" is not a data type name` };
  let redop: string | null = null;
  let root: number | null = null;
  for (const token of tokens.slice(3, keyCount)) {
    if (SIGNED_INTEGER.test(token) && root === null && (!layout || layout.hasRoot)) root = Number(token);
    else if (IDENTIFIER.test(token) && redop === null && root === null && (!layout || layout.hasRedop))
      redop = token;
    else return { ok: false, reason: `unexpected field "${token}" before the measurements` };
  }
  const outOfPlace = parseMeasurement(tokens, keyCount, layout?.checkColumn, perIteration);
  if (typeof outOfPlace === 'string') return { ok: false, reason: `out-of-place: ${outOfPlace}` };
  const inPlace = parseMeasurement(tokens, keyCount + perHalf, layout?.checkColumn, perIteration);
  if (typeof inPlace === 'string') return { ok: false, reason: `in-place: ${inPlace}` };
  if (layout?.name === 'nccl-1.x') {
    // NCCL 1 tests printed milliseconds; toPrecision drops the binary noise of the x1000.
    outOfPlace.timeUs = Number((outOfPlace.timeUs * 1000).toPrecision(12));
    inPlace.timeUs = Number((inPlace.timeUs * 1000).toPrecision(12));
  }
  const row: NcclTestsRow = {
    sizeBytes: Number(sizeToken),
    count: Number(countToken),
    type,
    redop,
    root,
    outOfPlace,
    inPlace,
    line,
  };
  if (timestamp !== undefined) row.timestamp = timestamp;
  return { ok: true, row };
}

/**
 * How many elements-worth of bytes a row's size is: 1 for all_reduce, broadcast, reduce, sendrecv;
 * the rank count for all_gather, reduce_scatter, alltoall (each test's getCollByteCount).
 * undefined when it cannot be told (size 0, unknown type); null when the row does not add up.
 */
export function sizeToCountRatio(row: NcclTestsRow): number | null | undefined {
  const elementBytes = typeSizeBytes(row.type);
  if (elementBytes === undefined || row.count === 0 || row.sizeBytes === 0) return undefined;
  const ratio = row.sizeBytes / (row.count * elementBytes);
  return Number.isInteger(ratio) && ratio >= 1 ? ratio : null;
}

/** The layout a headerless table most likely has, from its first complete row. */
export function inferLayout(row: NcclTestsRow): NcclTestsLayout {
  const checkColumn = row.outOfPlace.maxError !== undefined ? 'error' : 'wrong';
  return {
    name:
      row.root !== null && checkColumn === 'wrong'
        ? '2.13+'
        : checkColumn === 'error'
          ? 'pre-2.13'
          : 'unknown',
    hasRedop: row.redop !== null,
    hasRoot: row.root !== null,
    checkColumn,
    perIteration: row.outOfPlace.perIteration !== undefined,
    timestamps: row.timestamp !== undefined,
    cpuTime: false,
    fromHeader: false,
  };
}
