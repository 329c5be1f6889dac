/**
 * `rdma link show` (iproute2 rdma/link.c): one line per port, `link DEV/PORT key value ...`, and
 * its `-j` JSON form (an array of objects with ifname, port, state, physical_state, netdev).
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export interface RdmaLink {
  device: string;
  port: number;
  /** `ACTIVE`, `DOWN`, `INIT`, `ARMED`. */
  state: string | null;
  /** `LINK_UP`, `POLLING`, `DISABLED`, `LINK_ERROR_RECOVERY`... */
  physicalState: string | null;
  netdev: string | null;
  /** InfiniBand ports only. */
  lid: number | null;
  smLid: number | null;
  lmc: number | null;
  subnetPrefix: string | null;
  /** 1-based input line (text form) or array position + 1 (JSON form). */
  line: number;
  /** Every key and value as printed. */
  fields: Record<string, string>;
}

export interface RdmaLinkFacts {
  format: 'text' | 'json';
  links: RdmaLink[];
}

const DETECT_PREFIX_CHARS = 64 * 1024;
const LINK_LINE = /^link\s+([^\s/]+)\/(\d+)\b(.*)$/;

/** `[{` or `[]` opens the -j form; a shell prompt such as `[root@host ~]#` does not. */
function looksLikeJsonArray(text: string): boolean {
  return /^\s*\[\s*[{\]]/.test(text);
}

function detectRdmaLink(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (/^link\s+[^\s/]+\/\d+\s+(subnet_prefix|state|lid)\s/m.test(head)) return 0.95;
  if (looksLikeJsonArray(head) && head.includes('"physical_state"') && head.includes('"ifname"')) return 0.95;
  return 0;
}

function intOrNull(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value)) return null;
  return Number(value);
}

function linkFrom(device: string, port: number, fields: Record<string, string>, line: number): RdmaLink {
  return {
    device,
    port,
    state: fields.state ?? null,
    physicalState: fields.physical_state ?? null,
    netdev: fields.netdev ?? null,
    lid: intOrNull(fields.lid),
    smLid: intOrNull(fields.sm_lid),
    lmc: intOrNull(fields.lmc),
    subnetPrefix: fields.subnet_prefix ?? null,
    line,
    fields,
  };
}

function parseJson(text: string, warnings: ParseWarning[]): RdmaLink[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    warnings.push({ message: `JSON cut short or malformed: ${(error as Error).message}` });
    return [];
  }
  if (!Array.isArray(document)) {
    warnings.push({ message: 'JSON document is not an array of links' });
    return [];
  }
  const links: RdmaLink[] = [];
  document.forEach((entry: unknown, index) => {
    if (entry === null || typeof entry !== 'object') return;
    const fields: Record<string, string> = {};
    for (const [key, value] of Object.entries(entry as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        fields[key] = String(value);
    }
    const port = intOrNull(fields.port);
    if (fields.ifname === undefined || port === null) {
      warnings.push({ line: index + 1, message: 'link entry without ifname or port; skipped' });
      return;
    }
    links.push(linkFrom(fields.ifname, port, fields, index + 1));
  });
  return links;
}

export function parseRdmaLink(text: string): ParseResult<RdmaLinkFacts> {
  const warnings: ParseWarning[] = [];
  if (looksLikeJsonArray(text)) {
    return { kind: 'rdma-link', facts: { format: 'json', links: parseJson(text, warnings) }, warnings };
  }
  const links: RdmaLink[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const match = LINK_LINE.exec(line);
    if (!match) return;
    const tokens = (match[3] ?? '')
      .trim()
      .split(/\s+/)
      .filter((token) => token.length > 0);
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < tokens.length; i += 2) fields[tokens[i] ?? ''] = tokens[i + 1] ?? '';
    if (tokens.length % 2 === 1) {
      warnings.push({ line: index + 1, message: `"${tokens.at(-1) ?? ''}" has no value (line cut short?)` });
    }
    links.push(linkFrom(match[1] ?? '', Number(match[2]), fields, index + 1));
  });
  if (links.length === 0) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('rdma-link', firstIndex + 1, lines[firstIndex] ?? '');
  }
  return { kind: 'rdma-link', facts: { format: 'text', links }, warnings };
}

export const rdmaLinkParser: Parser<RdmaLinkFacts> = {
  kind: 'rdma-link',
  description: 'rdma link show [-j]: per RDMA port its state, physical state and netdev',
  detect: detectRdmaLink,
  parse: parseRdmaLink,
};
