/**
 * `mlnx_qos -i IFACE` (MLNX_OFED / DOCA, the mlnx_qos tool's "get" output): trust state, the
 * dscp2prio map, and the `PFC configuration:` block whose `enabled` row has one 0/1 per priority.
 * The layout is documented in NVIDIA's mlnx_qos community page and the MLNX_OFED QoS chapter.
 */
import { NotThisKindError, type Parser, type ParseResult } from './types.js';

export interface MlnxQosFacts {
  interfaceName: string | null;
  trust: 'pcp' | 'dscp' | null;
  trustLine: number | null;
  /** dscp -> priority, from the `prio:N dscp:..` lines; empty when not printed. */
  dscpToPriority: Record<number, number>;
  /** Priorities with PFC enabled; null when the PFC block is absent. */
  pfcEnabled: number[] | null;
  pfcLine: number | null;
}

const DETECT_PREFIX_CHARS = 64 * 1024;

export function looksLikeMlnxQos(text: string): boolean {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  return (
    /^\s*PFC configuration:\s*$/m.test(head) &&
    (/^\s*Priority trust state:/m.test(head) || /^\s*enabled(\s+[01]){8}\s*$/m.test(head))
  );
}

export function parseMlnxQos(text: string): ParseResult<MlnxQosFacts> {
  const lines = text.split(/\r?\n/);
  if (!looksLikeMlnxQos(text)) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('mlnx-qos', firstIndex + 1, lines[firstIndex] ?? '');
  }
  const facts: MlnxQosFacts = {
    interfaceName: null,
    trust: null,
    trustLine: null,
    dscpToPriority: {},
    pfcEnabled: null,
    pfcLine: null,
  };
  let inPfc = false;
  lines.forEach((line, index) => {
    const command = /mlnx_qos\s+(?:.*\s)?-i\s+(\S+)/.exec(line);
    if (command && facts.interfaceName === null) facts.interfaceName = command[1] ?? null;
    const trust = /^\s*Priority trust state:\s*(pcp|dscp)\b/i.exec(line);
    if (trust) {
      facts.trust = trust[1]!.toLowerCase() as 'pcp' | 'dscp';
      facts.trustLine = index + 1;
    }
    const map = /^\s*prio:\s*(\d)\s+dscp:\s*([\d,\s]+)$/.exec(line);
    if (map) {
      for (const dscp of map[2]!
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''))
        facts.dscpToPriority[Number(dscp)] = Number(map[1]);
    }
    if (/^\s*PFC configuration:\s*$/.test(line)) inPfc = true;
    const enabled = /^\s*enabled((?:\s+[01]){8})\s*$/.exec(line);
    if (inPfc && enabled) {
      facts.pfcEnabled = enabled[1]!
        .trim()
        .split(/\s+/)
        .flatMap((flag, priority) => (flag === '1' ? [priority] : []));
      facts.pfcLine = index + 1;
      inPfc = false;
    }
  });
  const warnings =
    facts.pfcEnabled === null
      ? [{ message: 'no `enabled` row after `PFC configuration:` (output cut?): PFC state unknown' }]
      : [];
  return { kind: 'mlnx-qos', facts, warnings };
}

export const mlnxQosParser: Parser<MlnxQosFacts> = {
  kind: 'mlnx-qos',
  description: 'mlnx_qos -i IFACE: trust state, dscp2prio map and the priorities with PFC enabled',
  detect: (text) => (looksLikeMlnxQos(text) ? 0.97 : 0),
  parse: parseMlnxQos,
};
