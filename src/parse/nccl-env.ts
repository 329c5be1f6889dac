/**
 * NCCL-related environment: an `env` dump, `export` lines of a job script, `declare -x` lines
 * (`export -p`) or a Dockerfile's `ENV` lines. Keeps NCCL_* and the variables of the transports
 * NCCL runs over (UCX_, FI_ for libfabric/EFA, OMPI_MCA_, NVSHMEM_, TORCH_NCCL_), and types the
 * ones a fabric check reads.
 * Semantics of each variable: NCCL docs, "Environment Variables" (docs.nvidia.com/deeplearning/nccl).
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';
import {
  readDeviceList,
  readGdrLevel,
  readList,
  type NcclDeviceList,
  type NcclGdrLevel,
  type NcclList,
} from './nccl-env-values.js';

export type { NcclDeviceList, NcclGdrLevel, NcclList } from './nccl-env-values.js';

export interface NcclEnvEntry {
  name: string;
  value: string;
  line: number;
  /** The value contains shell expansion (`$VAR`, `$(...)`, backticks): what it becomes at run time is unknown. */
  dynamic: boolean;
}

export interface NcclSettings {
  ibHca: NcclDeviceList | null;
  ibGidIndex: number | null;
  ibTc: number | null;
  ibSl: number | null;
  ibDisable: boolean | null;
  netGdrLevel: NcclGdrLevel | null;
  socketIfname: NcclDeviceList | null;
  socketNthreads: number | null;
  nsocksPerthread: number | null;
  algo: NcclList | null;
  proto: NcclList | null;
  /** NCCL_NET: the network plugin or transport by name (IB, Socket, UCX, AWS Libfabric...). */
  net: string | null;
  debug: string | null;
}

export interface NcclEnvFacts {
  /** Relevant variables, last assignment wins (as in a shell). */
  variables: Record<string, string>;
  entries: NcclEnvEntry[];
  /** Assignments of other variables that were read and left out. */
  otherVariableCount: number;
  nccl: NcclSettings;
}

const DETECT_PREFIX_CHARS = 64 * 1024;
const RELEVANT = /^(NCCL_|TORCH_NCCL_|UCX_|FI_|OMPI_MCA_|NVSHMEM_|GLOO_SOCKET_IFNAME$)/;
// `export X=`, `declare -x X=` (export -p), a Dockerfile's `ENV X=`, or a bare `X=` line of `env`.
const ASSIGNMENT = /^\s*(?:export\s+|declare\s+-x\s+|ENV\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

function detectNcclEnv(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  const exports = head.match(/^\s*(export\s+|declare\s+-x\s+|ENV\s+)?NCCL_[A-Z0-9_]+=/gm)?.length ?? 0;
  if (exports >= 2) return 0.9;
  if (exports === 1) return 0.7;
  return 0;
}

/** The value as the shell would see it, for the common quoting forms; `# comment` after it dropped. */
function unquote(raw: string): string {
  const value = raw.trim();
  const quoted = /^(["'])(.*)\1(\s+#.*)?$/.exec(value);
  if (quoted) return quoted[2] ?? '';
  return value.replace(/\s+#.*$/, '');
}

function intOrNull(value: string | undefined): number | null {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

function settingsFrom(variables: Record<string, string>, dynamicNames: Set<string>): NcclSettings {
  const get = (name: string): string | undefined => (dynamicNames.has(name) ? undefined : variables[name]);
  const ibDisable = intOrNull(get('NCCL_IB_DISABLE'));
  const hca = get('NCCL_IB_HCA');
  const ifname = get('NCCL_SOCKET_IFNAME');
  const gdr = get('NCCL_NET_GDR_LEVEL');
  const algo = get('NCCL_ALGO');
  const proto = get('NCCL_PROTO');
  return {
    ibHca: hca === undefined ? null : readDeviceList(hca),
    ibGidIndex: intOrNull(get('NCCL_IB_GID_INDEX')),
    ibTc: intOrNull(get('NCCL_IB_TC')),
    ibSl: intOrNull(get('NCCL_IB_SL')),
    ibDisable: ibDisable === null ? null : ibDisable !== 0,
    netGdrLevel: gdr === undefined ? null : readGdrLevel(gdr),
    socketIfname: ifname === undefined ? null : readDeviceList(ifname),
    socketNthreads: intOrNull(get('NCCL_SOCKET_NTHREADS')),
    nsocksPerthread: intOrNull(get('NCCL_NSOCKS_PERTHREAD')),
    algo: algo === undefined ? null : readList(algo),
    proto: proto === undefined ? null : readList(proto),
    net: get('NCCL_NET') ?? null,
    debug: get('NCCL_DEBUG') ?? null,
  };
}

export function parseNcclEnv(text: string): ParseResult<NcclEnvFacts> {
  const warnings: ParseWarning[] = [];
  const entries: NcclEnvEntry[] = [];
  const variables: Record<string, string> = {};
  const dynamicNames = new Set<string>();
  let otherVariableCount = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (/^\s*(#.*)?$/.test(line)) return;
    const match = ASSIGNMENT.exec(line);
    if (!match) return;
    const name = match[1] ?? '';
    if (!RELEVANT.test(name)) {
      otherVariableCount++;
      return;
    }
    const value = unquote(match[2] ?? '');
    const dynamic = /\$|`/.test(value);
    if (dynamic) {
      dynamicNames.add(name);
      warnings.push({
        line: lineNumber,
        message: `${name} is computed by the shell at run time (${value.slice(0, 40)}); its value is not known here`,
      });
    } else {
      dynamicNames.delete(name);
    }
    variables[name] = value;
    entries.push({ name, value, line: lineNumber, dynamic });
  });
  if (entries.length === 0 || !entries.some((entry) => entry.name.startsWith('NCCL_'))) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('nccl-env', firstIndex + 1, lines[firstIndex] ?? '');
  }
  const nccl = settingsFrom(variables, dynamicNames);
  for (const [name, field] of [
    ['NCCL_IB_GID_INDEX', nccl.ibGidIndex],
    ['NCCL_IB_TC', nccl.ibTc],
  ] as const) {
    const raw = variables[name];
    if (raw !== undefined && !dynamicNames.has(name) && field === null) {
      warnings.push({ message: `${name}=${raw} is not an integer` });
    }
  }
  if (nccl.netGdrLevel && nccl.netGdrLevel.level === null) {
    warnings.push({ message: `NCCL_NET_GDR_LEVEL=${nccl.netGdrLevel.raw} is not a level NCCL knows` });
  }
  return { kind: 'nccl-env', facts: { variables, entries, otherVariableCount, nccl }, warnings };
}

export const ncclEnvParser: Parser<NcclEnvFacts> = {
  kind: 'nccl-env',
  description:
    'env dump or export lines: NCCL_*, UCX_*, FI_* variables, typed NCCL_IB_HCA, GID index, TC, GDR level',
  detect: detectNcclEnv,
  parse: parseNcclEnv,
};
