/**
 * Slurm hostlist expressions (`SLURM_JOB_NODELIST`, `node[01-16]`) expanded into host names as
 * `scontrol show hostnames` prints them, so `accept` under Slurm with no host option sees the
 * allocation exactly as Slurm does.
 *
 * Rules, from Slurm's own parser (SchedMD/slurm@0022d831f25e1eedd747d35bb232d3364312c099
 * src/common/hostlist.c, `_hostlist_create_bracketed`, `_parse_single_range`, `_push_range_list`):
 * - entries are separated by commas, spaces or tabs outside brackets (`hostlist_create_dims`, "\t, ");
 * - a bracket holds comma-separated numbers or `lo-hi` ranges; the width of `lo` is kept as zero
 *   padding (`range->width = strlen(str)`, printed with "%0*lu"); `lo > hi`, negatives and
 *   non-digits are invalid;
 * - nothing may follow the last bracket of an entry (`q[1] != ',' && q[1] != '\0'` is an error);
 * - with several bracket groups (`rack[1-2]-n[01-02]`) the last group varies fastest, and the
 *   earlier groups are expanded from the right-most one outwards (`_push_range_list` recurses on
 *   `strrchr(prefix, '[')`); with two groups this is the plain cartesian product, first group outer.
 * - duplicates are kept, as `scontrol show hostnames a,a` prints `a` twice.
 * Slurm's documented form: https://manpages.ubuntu.com/manpages/jammy/man3/Slurm::Hostlist.3pm.html
 * (entries "separated by either `,' or whitespace", a bracketed list "tux[0-5,12,20-25]") and
 * https://manpages.ubuntu.com/manpages/jammy/en/man3/slurm_hostlist_shift.3.html ("linux[1-3,6]"
 * represents linux1, linux2, linux3, linux6); `scontrol show hostnames` prints that list one per line.
 * Slurm treats an unclosed '[' by appending ']'; we reject it, since a typo in a node list should
 * not silently name a host that does not exist.
 */
import { InputError } from '../core/errors.js';

/** Refuse expressions that would expand to more hosts than any cluster has (a typo like `n[0-99999999]`). */
export const MAX_HOSTLIST_HOSTS = 1 << 20;

interface Range {
  lo: number;
  hi: number;
  width: number;
}

interface Group {
  ranges: Range[];
  /** 0-based offset of the '[' in the whole expression. */
  at: number;
}

/** One entry: literal text around bracket groups; `literals.length === groups.length + 1`. */
interface Entry {
  literals: string[];
  groups: Group[];
}

function fail(expr: string, position: number, what: string): never {
  throw new InputError(`hostlist "${expr}" at position ${position + 1}: ${what}`);
}

function splitEntries(expr: string): { text: string; at: number }[] {
  const entries: { text: string; at: number }[] = [];
  let depth = 0;
  let start = 0;
  let openAt = -1;
  for (let i = 0; i <= expr.length; i++) {
    const ch = expr[i];
    if (ch === '[') {
      if (depth > 0) fail(expr, i, "nested '['");
      depth = 1;
      openAt = i;
    } else if (ch === ']') {
      if (depth === 0) fail(expr, i, "']' without '['");
      depth = 0;
    } else if (ch === undefined || (depth === 0 && (ch === ',' || ch === ' ' || ch === '\t'))) {
      if (ch === undefined && depth > 0) fail(expr, openAt, "unclosed '['");
      if (i > start) entries.push({ text: expr.slice(start, i), at: start });
      start = i + 1;
    }
  }
  return entries;
}

function parseRange(expr: string, text: string, at: number): Range {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!match) fail(expr, at, `expected a number or lo-hi range, got "${text}"`);
  const loText = match[1] ?? '';
  const lo = Number(loText);
  const hi = match[2] === undefined ? lo : Number(match[2]);
  if (lo > hi) fail(expr, at, `range "${text}" runs backwards`);
  return { lo, hi, width: loText.length };
}

function parseGroup(expr: string, body: string, at: number): Group {
  const ranges: Range[] = [];
  let offset = at + 1;
  for (const part of body.split(',')) {
    ranges.push(parseRange(expr, part, offset));
    offset += part.length + 1;
  }
  return { ranges, at };
}

function parseEntry(expr: string, text: string, at: number): Entry {
  const literals: string[] = [];
  const groups: Group[] = [];
  let cursor = 0;
  for (;;) {
    const open = text.indexOf('[', cursor);
    if (open < 0) break;
    const close = text.indexOf(']', open);
    literals.push(text.slice(cursor, open));
    groups.push(parseGroup(expr, text.slice(open + 1, close), at + open));
    cursor = close + 1;
  }
  const tail = text.slice(cursor);
  if (groups.length > 0 && tail !== '') fail(expr, at + cursor, `text "${tail}" after the last ']'`);
  literals.push(tail);
  return { literals, groups };
}

function count(group: Group): number {
  let total = 0;
  for (const range of group.ranges) total += range.hi - range.lo + 1;
  return total;
}

function format(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function* values(group: Group): Generator<string> {
  for (const range of group.ranges) {
    for (let value = range.lo; value <= range.hi; value++) yield format(value, range.width);
  }
}

/**
 * Expand in Slurm's order: the right-most prefix group outermost, recursing leftwards, with the final
 * group innermost (`_push_range_list`). `chosen[i]` is the text picked for group i.
 */
function expandEntry(entry: Entry, out: string[]): void {
  const last = entry.groups.length - 1;
  if (last < 0) {
    out.push(entry.literals[0] ?? '');
    return;
  }
  const chosen: string[] = new Array<string>(entry.groups.length).fill('');
  const finalGroup = entry.groups[last];
  const emit = (): void => {
    if (!finalGroup) return;
    for (const value of values(finalGroup)) {
      chosen[last] = value;
      let name = '';
      for (let i = 0; i <= last; i++) name += (entry.literals[i] ?? '') + (chosen[i] ?? '');
      out.push(name + (entry.literals[last + 1] ?? ''));
    }
  };
  const prefixGroup = (index: number): void => {
    const group = entry.groups[index];
    if (index < 0 || !group) {
      emit();
      return;
    }
    for (const value of values(group)) {
      chosen[index] = value;
      prefixGroup(index - 1);
    }
  };
  prefixGroup(last - 1);
}

/** Expand a Slurm hostlist expression (`node[01-16]`, `a[1-3,5],b7`, `rack[1-2]-n[01-02]`). */
export function expandHostlist(expr: string): string[] {
  const entries = splitEntries(expr).map(({ text, at }) => parseEntry(expr, text, at));
  let total = 0;
  for (const entry of entries) {
    let product = 1;
    for (const group of entry.groups) product *= count(group);
    total += product;
    if (total > MAX_HOSTLIST_HOSTS) {
      fail(expr, entry.groups[0]?.at ?? 0, `expands to more than ${MAX_HOSTLIST_HOSTS} hosts`);
    }
  }
  const hosts: string[] = [];
  for (const entry of entries) expandEntry(entry, hosts);
  return hosts;
}
