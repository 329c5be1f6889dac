/**
 * The value syntaxes of NCCL's environment variables, per the NCCL docs ("Environment Variables"):
 * - NCCL_IB_HCA, NCCL_SOCKET_IFNAME: comma list; `^` excludes the listed names, `=` asks for exact
 *   names instead of prefixes, both may combine (`^=mlx5_3`); IB entries may carry `:port`.
 * - NCCL_NET_GDR_LEVEL: a path type name, or a legacy integer mapped by NCCL src/graph/paths.cc
 *   levelsOldToNew = { LOC, PIX, PXB, PHB, SYS, SYS }.
 * - NCCL_ALGO, NCCL_PROTO: comma list, `^` to exclude.
 */

export interface NcclDeviceEntry {
  name: string;
  /** `mlx5_0:1` gives 1; null when no port is given (NCCL then uses every active port). */
  port: number | null;
}

export interface NcclDeviceList {
  raw: string;
  /** `^`: use every device except these. */
  exclude: boolean;
  /** `=`: names must match exactly; otherwise each entry is a name prefix. */
  exactMatch: boolean;
  entries: NcclDeviceEntry[];
}

export interface NcclList {
  raw: string;
  exclude: boolean;
  items: string[];
}

export type NcclPathType = 'LOC' | 'NVL' | 'NVB' | 'PIX' | 'PXB' | 'PXN' | 'PHB' | 'SYS';

export interface NcclGdrLevel {
  raw: string;
  /** The path type up to which GPUDirect RDMA is used; null when the value is not understood. */
  level: NcclPathType | null;
  /** Set when the value was a legacy integer. */
  legacyInteger: number | null;
}

const PATH_TYPES: readonly NcclPathType[] = ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS'];
const LEGACY_LEVELS: readonly NcclPathType[] = ['LOC', 'PIX', 'PXB', 'PHB', 'SYS', 'SYS'];

function readPrefixes(raw: string): { exclude: boolean; exactMatch: boolean; rest: string } {
  let rest = raw.trim();
  let exclude = false;
  let exactMatch = false;
  // NCCL accepts the two markers in either order.
  for (let i = 0; i < 2; i++) {
    if (rest.startsWith('^')) {
      exclude = true;
      rest = rest.slice(1);
    } else if (rest.startsWith('=')) {
      exactMatch = true;
      rest = rest.slice(1);
    }
  }
  return { exclude, exactMatch, rest };
}

export function readDeviceList(raw: string): NcclDeviceList {
  const { exclude, exactMatch, rest } = readPrefixes(raw);
  const entries = rest
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const match = /^(.*?):(\d+)$/.exec(part);
      return match ? { name: match[1] ?? '', port: Number(match[2]) } : { name: part, port: null };
    });
  return { raw, exclude, exactMatch, entries };
}

export function readList(raw: string): NcclList {
  const trimmed = raw.trim();
  const exclude = trimmed.startsWith('^');
  const items = (exclude ? trimmed.slice(1) : trimmed)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  return { raw, exclude, items };
}

export function readGdrLevel(raw: string): NcclGdrLevel {
  const value = raw.trim().toUpperCase();
  if (/^\d+$/.test(value)) {
    const legacyInteger = Number(value);
    return {
      raw,
      level: LEGACY_LEVELS[Math.min(legacyInteger, LEGACY_LEVELS.length - 1)] ?? null,
      legacyInteger,
    };
  }
  const level = PATH_TYPES.find((type) => type === value) ?? null;
  return { raw, level, legacyInteger: null };
}
