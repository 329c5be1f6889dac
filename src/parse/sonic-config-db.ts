/**
 * The QoS parts of a SONiC `config_db.json` (sonic-net/SONiC doc/qos, sonic-buildimage qos.json.j2):
 * PORT speeds, PORT_QOS_MAP `pfc_enable` per port, WRED_PROFILE thresholds (bytes) and the QUEUE
 * entries that attach a profile to `Ethernet0|3`-style port and queue keys. Line numbers point at
 * the key in the JSON text so evidence can name them.
 */
import { NotThisKindError, type Parser, type ParseResult } from './types.js';

export interface SonicWredProfile {
  name: string;
  /** `ecn_none`, `ecn_green`, `ecn_all`...: whether marking (rather than dropping) is on. */
  ecn: string | null;
  greenMinBytes: number | null;
  greenMaxBytes: number | null;
  greenDropProbabilityPct: number | null;
  line: number;
}

export interface SonicPortQos {
  port: string;
  /** Priorities with PFC on, from `pfc_enable: "3,4"`; null when the key is absent. */
  pfcEnabled: number[] | null;
  line: number;
}

export interface SonicQueueProfile {
  port: string;
  queue: number;
  wredProfile: string;
  line: number;
}

export interface SonicConfigDbFacts {
  portSpeedsMbps: Record<string, number>;
  portQos: SonicPortQos[];
  wredProfiles: SonicWredProfile[];
  queues: SonicQueueProfile[];
}

const QOS_TABLES = ['PORT_QOS_MAP', 'WRED_PROFILE', 'BUFFER_PG', 'DSCP_TO_TC_MAP', 'PFC_WD'];
const DETECT_PREFIX_CHARS = 256 * 1024;

export function looksLikeSonicConfigDb(text: string): boolean {
  const head = text.slice(0, DETECT_PREFIX_CHARS).trimStart();
  if (!head.startsWith('{')) return false;
  return QOS_TABLES.some((table) => head.includes(`"${table}"`));
}

function lineOfKey(text: string, key: string, from = 0): number {
  const index = text.indexOf(`"${key}"`, from);
  if (index < 0) return 1;
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function numberOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/** `[WRED_PROFILE|AZURE_LOSSLESS]` (older images) or `AZURE_LOSSLESS` (202012+). */
function profileName(reference: string): string {
  const match = /^\[?WRED_PROFILE\|([^\]]+)\]?$/.exec(reference.trim());
  return match ? match[1]! : reference.trim();
}

/** Expands `Ethernet0,Ethernet4|3-4` keys (SONiC allows port lists and queue ranges). */
function expandPortQueueKey(key: string): { port: string; queue: number }[] {
  const [portsPart, queuePart] = key.split('|');
  if (portsPart === undefined || queuePart === undefined) return [];
  const queues: number[] = [];
  for (const piece of queuePart.split(',')) {
    const range = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(piece);
    if (!range) continue;
    const start = Number(range[1]);
    const end = range[2] === undefined ? start : Number(range[2]);
    for (let queue = start; queue <= end && queue - start < 64; queue++) queues.push(queue);
  }
  return portsPart.split(',').flatMap((port) => queues.map((queue) => ({ port: port.trim(), queue })));
}

function notSonic(text: string, why: string): NotThisKindError {
  const lines = text.split('\n');
  const firstIndex = lines.findIndex((line) => line.trim().length > 0);
  return new NotThisKindError(
    'sonic-config-db',
    Math.max(firstIndex, 0) + 1,
    why || (lines[firstIndex] ?? ''),
  );
}

/** Throws NotThisKindError when the text is not JSON with a SONiC QoS table. */
export function parseSonicConfigDb(text: string): ParseResult<SonicConfigDbFacts> {
  if (!looksLikeSonicConfigDb(text)) throw notSonic(text, '');
  let root: Record<string, unknown>;
  try {
    root = asRecord(JSON.parse(text));
  } catch (error) {
    throw notSonic(text, `JSON cut short or malformed: ${(error as Error).message}`);
  }
  if (!QOS_TABLES.some((table) => table in root)) throw notSonic(text, 'no SONiC QoS table at the top level');
  const portSpeedsMbps: Record<string, number> = {};
  for (const [port, entry] of Object.entries(asRecord(root.PORT))) {
    const speed = numberOrNull(asRecord(entry).speed);
    if (speed !== null) portSpeedsMbps[port] = speed;
  }
  const qosStart = text.indexOf('"PORT_QOS_MAP"');
  const portQos: SonicPortQos[] = Object.entries(asRecord(root.PORT_QOS_MAP)).flatMap(([ports, entry]) => {
    const raw = asRecord(entry).pfc_enable;
    const pfcEnabled =
      typeof raw === 'string'
        ? raw
            .split(',')
            .map((item) => item.trim())
            .filter((item) => /^\d+$/.test(item))
            .map(Number)
        : null;
    const line = lineOfKey(text, ports, Math.max(0, qosStart));
    return ports.split(',').map((port) => ({ port: port.trim(), pfcEnabled, line }));
  });
  const wredStart = text.indexOf('"WRED_PROFILE"');
  const wredProfiles: SonicWredProfile[] = Object.entries(asRecord(root.WRED_PROFILE)).map(
    ([name, entry]) => {
      const fields = asRecord(entry);
      return {
        name,
        ecn: typeof fields.ecn === 'string' ? fields.ecn : null,
        greenMinBytes: numberOrNull(fields.green_min_threshold),
        greenMaxBytes: numberOrNull(fields.green_max_threshold),
        greenDropProbabilityPct: numberOrNull(fields.green_drop_probability),
        line: lineOfKey(text, name, Math.max(0, wredStart)),
      };
    },
  );
  const queueStart = text.indexOf('"QUEUE"');
  const queues: SonicQueueProfile[] = Object.entries(asRecord(root.QUEUE)).flatMap(([key, entry]) => {
    const reference = asRecord(entry).wred_profile;
    if (typeof reference !== 'string') return [];
    const line = lineOfKey(text, key, Math.max(0, queueStart));
    return expandPortQueueKey(key).map(({ port, queue }) => ({
      port,
      queue,
      wredProfile: profileName(reference),
      line,
    }));
  });
  return { kind: 'sonic-config-db', facts: { portSpeedsMbps, portQos, wredProfiles, queues }, warnings: [] };
}

export const sonicConfigDbParser: Parser<SonicConfigDbFacts> = {
  kind: 'sonic-config-db',
  description:
    'SONiC config_db.json: PORT speeds, PORT_QOS_MAP pfc_enable, WRED profiles and the queues using them',
  detect: (text) => (looksLikeSonicConfigDb(text) ? 0.97 : 0),
  parse: parseSonicConfigDb,
};
