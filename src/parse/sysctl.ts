/**
 * `sysctl -a` output and sysctl.conf / sysctl.d files: key = value lines, `#` and `;` comments,
 * a leading `-` (ignore errors when applying, sysctl.d(5)), `/` as key separator. Typed helpers
 * for the settings that bound a TCP fabric's throughput: socket buffer limits and congestion control.
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export interface SysctlEntry {
  key: string;
  value: string;
  line: number;
  /** sysctl.d `-key = value`: a failure to set this key is not an error. */
  ignoreErrors: boolean;
}

/** net.ipv4.tcp_rmem / tcp_wmem: three numbers, min, default and max bytes per socket. */
export interface TcpBufferTriple {
  minBytes: number;
  defaultBytes: number;
  maxBytes: number;
}

export interface SysctlNetworkSettings {
  coreRmemMaxBytes: number | null;
  coreWmemMaxBytes: number | null;
  coreRmemDefaultBytes: number | null;
  coreWmemDefaultBytes: number | null;
  tcpRmem: TcpBufferTriple | null;
  tcpWmem: TcpBufferTriple | null;
  tcpCongestionControl: string | null;
  defaultQdisc: string | null;
  netdevMaxBacklog: number | null;
  tcpMtuProbing: number | null;
  tcpWindowScaling: boolean | null;
  tcpTimestamps: boolean | null;
  tcpSack: boolean | null;
  tcpEcn: number | null;
  tcpSlowStartAfterIdle: boolean | null;
}

export interface SysctlFacts {
  /** Final value per key (a later line overrides an earlier one, as when sysctl applies a file). */
  settings: Record<string, string>;
  entries: SysctlEntry[];
  network: SysctlNetworkSettings;
}

const DETECT_PREFIX_CHARS = 64 * 1024;
const KEY_VALUE = /^\s*(-?)([A-Za-z0-9_][A-Za-z0-9_\-*]*(?:[./][A-Za-z0-9_\-*:]+)+)\s*=\s*(.*?)\s*$/;
const TOP_LEVELS = /^(net|kernel|vm|fs|dev|debug|sunrpc|user|abi|crypto)[./]/;

function detectSysctl(text: string): number {
  const lines = text.slice(0, DETECT_PREFIX_CHARS).split(/\r?\n/);
  let keyValue = 0;
  let known = 0;
  let other = 0;
  for (const line of lines) {
    if (/^\s*([#;].*)?$/.test(line)) continue;
    const match = KEY_VALUE.exec(line);
    if (match) {
      keyValue++;
      if (TOP_LEVELS.test(match[2] ?? '')) known++;
    } else {
      other++;
    }
  }
  if (known >= 1 && keyValue >= 3 && keyValue >= other) return 0.9;
  if (known >= 1 && keyValue > other) return 0.75;
  return 0;
}

function numberOrNull(value: string | undefined): number | null {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

function flag(value: string | undefined): boolean | null {
  const n = numberOrNull(value);
  return n === null ? null : n !== 0;
}

function triple(value: string | undefined): TcpBufferTriple | null {
  // Values are tab or space separated in `sysctl -a`; quoted in some conf files.
  const parts = (value ?? '')
    .replace(/^["']|["']$/g, '')
    .trim()
    .split(/\s+/)
    .map(Number);
  if (parts.length !== 3 || parts.some((n) => !Number.isInteger(n))) return null;
  const [minBytes = 0, defaultBytes = 0, maxBytes = 0] = parts;
  return { minBytes, defaultBytes, maxBytes };
}

export function networkSettings(settings: Record<string, string>): SysctlNetworkSettings {
  const get = (key: string): string | undefined => settings[key];
  return {
    coreRmemMaxBytes: numberOrNull(get('net.core.rmem_max')),
    coreWmemMaxBytes: numberOrNull(get('net.core.wmem_max')),
    coreRmemDefaultBytes: numberOrNull(get('net.core.rmem_default')),
    coreWmemDefaultBytes: numberOrNull(get('net.core.wmem_default')),
    tcpRmem: triple(get('net.ipv4.tcp_rmem')),
    tcpWmem: triple(get('net.ipv4.tcp_wmem')),
    tcpCongestionControl: get('net.ipv4.tcp_congestion_control') ?? null,
    defaultQdisc: get('net.core.default_qdisc') ?? null,
    netdevMaxBacklog: numberOrNull(get('net.core.netdev_max_backlog')),
    tcpMtuProbing: numberOrNull(get('net.ipv4.tcp_mtu_probing')),
    tcpWindowScaling: flag(get('net.ipv4.tcp_window_scaling')),
    tcpTimestamps: flag(get('net.ipv4.tcp_timestamps')),
    tcpSack: flag(get('net.ipv4.tcp_sack')),
    tcpEcn: numberOrNull(get('net.ipv4.tcp_ecn')),
    tcpSlowStartAfterIdle: flag(get('net.ipv4.tcp_slow_start_after_idle')),
  };
}

export function parseSysctl(text: string): ParseResult<SysctlFacts> {
  const warnings: ParseWarning[] = [];
  const entries: SysctlEntry[] = [];
  const settings: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (/^\s*([#;].*)?$/.test(line)) return;
    const match = KEY_VALUE.exec(line);
    if (!match) {
      if (/^sysctl: /.test(line)) warnings.push({ line: lineNumber, message: `sysctl says: ${line.trim()}` });
      else if (!/[#$]\s+\S/.test(line))
        warnings.push({ line: lineNumber, message: 'not a key = value line (cut short?); skipped' });
      return;
    }
    // sysctl.d(5): `/` and `.` both separate key components; net/ipv4/tcp_rmem is net.ipv4.tcp_rmem.
    const key = (match[2] ?? '').replace(/\//g, '.');
    const value = match[3] ?? '';
    const previous = settings[key];
    if (previous !== undefined && previous !== value) {
      warnings.push({
        line: lineNumber,
        message: `${key} set again (${previous} -> ${value}); the later value wins`,
      });
    }
    settings[key] = value;
    entries.push({ key, value, line: lineNumber, ignoreErrors: match[1] === '-' });
  });
  if (entries.length === 0 || !entries.some((entry) => TOP_LEVELS.test(entry.key))) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('sysctl', firstIndex + 1, lines[firstIndex] ?? '');
  }
  return { kind: 'sysctl', facts: { settings, entries, network: networkSettings(settings) }, warnings };
}

export const sysctlParser: Parser<SysctlFacts> = {
  kind: 'sysctl',
  description: 'sysctl -a output or sysctl.conf: every key, typed TCP buffer and congestion settings',
  detect: detectSysctl,
  parse: parseSysctl,
};
