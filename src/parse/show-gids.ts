/**
 * The `show_gids` script shipped with MLNX_OFED / DOCA (columns DEV PORT INDEX GID IPv4 VER DEV):
 * per device, port and GID index, the GID, its IPv4 address when it has one, the RoCE version and
 * the netdev. The IPv4 and netdev columns are empty for some rows, so rows are read by shape.
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export interface GidEntry {
  device: string;
  port: number;
  index: number;
  gid: string;
  ipv4: string | null;
  version: 'v1' | 'v2';
  netdev: string | null;
  line: number;
}

export interface ShowGidsFacts {
  entries: GidEntry[];
  /** The script's closing `n_gids_found=N`; null when the output was cut before it. */
  gidsFound: number | null;
}

const DETECT_PREFIX_CHARS = 64 * 1024;
const HEADER = /^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$/;
const GID = /^[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){7}$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function detectShowGids(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (/^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$/m.test(head)) return 0.95;
  if (/^n_gids_found=\d+\s*$/m.test(head)) return 0.9;
  if (/^\S+\s+\d+\s+\d+\s+[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){7}\s+(\S+\s+)?v[12]\b/m.test(head)) return 0.85;
  return 0;
}

/** A data row, or a reason it is not one. */
function readRow(tokens: string[], lineNumber: number): GidEntry | string {
  const [device, port, index, gid, ...rest] = tokens;
  if (device === undefined || port === undefined || index === undefined || gid === undefined)
    return 'row cut short';
  if (!/^\d+$/.test(port) || !/^\d+$/.test(index)) return 'PORT and INDEX must be numbers';
  if (!GID.test(gid)) return 'GID cut short or malformed';
  let position = 0;
  let ipv4: string | null = null;
  if (rest[0] !== undefined && IPV4.test(rest[0])) {
    ipv4 = rest[0];
    position = 1;
  }
  const version = rest[position];
  if (version !== 'v1' && version !== 'v2') return 'VER column missing (row cut short?)';
  return {
    device,
    port: Number(port),
    index: Number(index),
    gid,
    ipv4,
    version,
    netdev: rest[position + 1] ?? null,
    line: lineNumber,
  };
}

export function parseShowGids(text: string): ParseResult<ShowGidsFacts> {
  const warnings: ParseWarning[] = [];
  const entries: GidEntry[] = [];
  let gidsFound: number | null = null;
  let sawHeader = false;
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const lineNumber = index + 1;
    if (HEADER.test(line)) {
      sawHeader = true;
      continue;
    }
    const found = /^n_gids_found=(\d+)\s*$/.exec(line);
    if (found) {
      gidsFound = Number(found[1]);
      continue;
    }
    const tokens = line.trim().split(/\s+/);
    if (tokens.length < 2 || /^-+$/.test(tokens[0] ?? '') || !/^\d+$/.test(tokens[1] ?? '')) continue;
    const row = readRow(tokens, lineNumber);
    if (typeof row === 'string') warnings.push({ line: lineNumber, message: `${row}; skipped` });
    else entries.push(row);
  }
  if (!sawHeader && gidsFound === null && entries.length === 0) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('show-gids', firstIndex + 1, lines[firstIndex] ?? '');
  }
  if (gidsFound !== null && gidsFound !== entries.length) {
    warnings.push({ message: `n_gids_found=${gidsFound} but ${entries.length} rows were read` });
  }
  return { kind: 'show-gids', facts: { entries, gidsFound }, warnings };
}

export const showGidsParser: Parser<ShowGidsFacts> = {
  kind: 'show-gids',
  description: 'show_gids: per device, port and GID index the GID, IPv4, RoCE version and netdev',
  detect: detectShowGids,
  parse: parseShowGids,
};
