/**
 * Tool output as people paste it into issues, chats and runbooks, made back into what the tool
 * printed: CRLF and ANSI colour codes removed, per-line prefixes of launchers and log collectors
 * stripped (Open MPI `--tag-output`, `srun -l`, `kubectl logs --timestamps`, journald, pdsh/clush
 * host names), shell prompts reduced to `$ COMMAND`, `sudo` password prompts and elision lines
 * (`...`, `.......`) dropped, and a uniform indentation (Markdown, email) removed. A paste with
 * several pdsh/clush host prefixes becomes one segment per host. Every kept line remembers the
 * line of the paste it came from, so parsers' line numbers can be mapped back.
 */
import type { ParseWarning } from './types.js';

export interface PasteLine {
  text: string;
  /** 1-based line of the paste this line came from. */
  line: number;
}

export interface PasteSegment {
  /** The pdsh/clush host prefix (`node01`) the lines carried; null when there was none. */
  host: string | null;
  lines: PasteLine[];
  /** False when the paste's last line is in this segment and had no line end (a cut paste, or a chat copy). */
  endsWithNewline: boolean;
  /** False when the segment is the paste byte for byte (nothing to undo): parsers then read it as is. */
  changed: boolean;
  warnings: ParseWarning[];
}

/** Lines looked at to decide which prefixes and indentation a paste has. */
const PLAN_LINES = 4000;
/** A prefix style applies when at least this share of the non-blank lines carries it (prompt lines do not). */
const PREFIX_SHARE = 0.6;

// ECMA-48 CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

interface PrefixStyle {
  name: string;
  pattern: RegExp;
  /** Capture group 1 names the host (pdsh, clush). */
  host?: boolean;
}

const PREFIX_STYLES: PrefixStyle[] = [
  // Open MPI mpirun --tag-output (ompi/orte iof): `[job,rank]<stdout>:`.
  { name: 'open-mpi', pattern: /^\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:/ },
  // kubectl logs --timestamps: RFC 3339 with nanoseconds, then one space.
  { name: 'kubectl', pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}) / },
  // journalctl's default short format: `Dec 01 08:00:00 host unit[pid]: `.
  { name: 'journald', pattern: /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ [^\s:[]+(?:\[\d+\])?: / },
  // srun -l (--label): the task id, right-aligned, then `: `.
  { name: 'srun', pattern: /^ *\d+:(?: |$)/ },
  // pdsh and clush: `host: `; host names have no `_` (RFC 1123) and, to tell them from `key: value`, a digit, `-` or `.`.
  {
    name: 'host',
    pattern: /^([A-Za-z0-9][A-Za-z0-9.-]*[0-9.-][A-Za-z0-9.-]*|[A-Za-z0-9.-]*[0-9][A-Za-z0-9.-]*):(?: |$)/,
    host: true,
  },
];

/** Commands a root prompt (`# ...`) may run, to tell it from the `#` comment lines of nccl-tests, perftest and conf files. */
const ROOT_PROMPT_COMMANDS =
  /^#\s+(?:sudo|ibv_devinfo|ibv_devices|ibstat|ibstatus|show_gids|rdma|ethtool|sysctl|nvidia-smi|mlnx_qos|systemd-detect-virt|cat|grep|dmidecode|lscpu|iperf3?|ib_(?:write|read|send|atomic)_(?:bw|lat)|mpirun|mpiexec|srun|kubectl|pdsh|clush|docker|podman|lspci|(?:\.{0,2}\/)\S+_perf)(?:\s|$)/;
// `user@host:~$ cmd`, `root@host:/x# cmd`, `[root@host ~]# cmd`, `(venv) user@host:~$ cmd`, `$ cmd`, `> cmd` is not one (quotes).
const USER_PROMPT =
  /^(?:\([^)]*\)\s*)?(?:[\w.-]+@[\w.-]+:[^\s$#]*\s?[$#]|\[[\w.-]+@[\w.-]+[^\]]*\][$#]|[\w.-]+@[\w.-]+\s?[$#>]|\$)(?:\s+(.*))?$/;
const SUDO_PROMPT = /^\s*\[sudo\] password for [^:]*:\s?/;
/** `...`, `.......`, `…`, `[...]`, `<snip>`, `... (truncated)`: a part of the output left out. */
const ELISION =
  /^\s*(?:\.{3,}|…+|\[(?:\.{3,}|…|snip|snipped|truncated)\]|<snip>|\((?:\.{3,}|…)\)|(?:\.{3,}|…)\s*\(?(?:snip|snipped|truncated|more|output truncated|omitted)[^)]*\)?|-{2,}\s*snip\s*-{2,})\s*$/i;

type LineRole = 'content' | 'prompt' | 'elision' | 'blank';

interface Classified {
  role: LineRole;
  text: string;
}

function cleanLine(raw: string): string {
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line.includes('\u001b')) line = line.replace(ANSI, '');
  return line;
}

/** Characters a prompt, sudo prompt or elision line can start with: other lines skip the patterns (streams of millions of lines). */
const SPECIAL_FIRST = new Set(['$', '#', '[', '(', '.', '…', '<', '-']);

function classify(line: string): Classified {
  let text = line;
  if (text.includes('[sudo]')) {
    const sudo = SUDO_PROMPT.exec(text);
    if (sudo) {
      text = text.slice(sudo[0].length);
      if (text.trim() === '') return { role: 'prompt', text: '' };
    }
  }
  const trimmed = text.trim();
  if (trimmed === '') return { role: 'blank', text: '' };
  const first = trimmed[0]!;
  if (!SPECIAL_FIRST.has(first) && !trimmed.includes('@')) return { role: 'content', text };
  if (ELISION.test(trimmed)) return { role: 'elision', text: '' };
  if (first === '#' && ROOT_PROMPT_COMMANDS.test(trimmed))
    return { role: 'prompt', text: `$ ${trimmed.replace(/^#\s+/, '')}` };
  const prompt = USER_PROMPT.exec(trimmed);
  if (prompt) {
    const command = (prompt[1] ?? '').trim();
    return { role: 'prompt', text: command === '' ? '' : `$ ${command}` };
  }
  return { role: 'content', text };
}

export interface PastePlan {
  /** Spaces every line starts with before any prefix (the whole paste indented): removed first. */
  outerIndent: number;
  /** Prefix styles to strip, in order. */
  prefixes: PrefixStyle[];
  /** Split by the host style's names. */
  byHost: boolean;
  /** Spaces every content line starts with (after prefixes): removed. */
  indent: number;
}

function stripPrefixes(
  line: string,
  prefixes: readonly PrefixStyle[],
): { text: string; host: string | null } {
  let text = line;
  let host: string | null = null;
  for (const style of prefixes) {
    const match = style.pattern.exec(text);
    if (!match) continue;
    if (style.host) host = match[1] ?? null;
    text = text.slice(match[0].length);
  }
  return { text, host };
}

export interface PasteOptions {
  /**
   * Keep a uniform indentation: some tools indent their own lines (ethtool -S counters under
   * `NIC statistics:`), so a grep of them looks indented. Callers try both and keep the better read.
   */
  keepIndent?: boolean;
}

/** Decide from the first lines which prefixes to strip and how much indentation to remove. */
export function planPaste(lines: readonly string[], options: PasteOptions = {}): PastePlan {
  const sample = lines.slice(0, PLAN_LINES).map(cleanLine);
  const outer = commonIndent(sample);
  const prefixes: PrefixStyle[] = [];
  let current = outer > 0 ? sample.map((line) => dedent(line, outer)) : sample;
  // Prefixes nest (pdsh around srun -l, kubectl around Open MPI): peel one style at a time.
  for (let round = 0; round < PREFIX_STYLES.length; round++) {
    const candidates = current.filter((line) => classify(line).role === 'content');
    if (candidates.length === 0) break;
    const style = PREFIX_STYLES.find((each) => {
      if (prefixes.includes(each)) return false;
      const matched = candidates.filter((line) => each.pattern.test(line));
      if (
        matched.length < Math.min(2, candidates.length) ||
        matched.length < candidates.length * PREFIX_SHARE
      )
        return false;
      if (!each.host) return true;
      // A host prefix repeats: a few hosts, many lines each (`key: value` lines name a new key each time).
      const hosts = new Set(matched.map((line) => each.pattern.exec(line)?.[1]));
      return (
        hosts.size <= Math.max(2, Math.floor(matched.length / 2)) &&
        (matched.length > 4 || matched.length === candidates.length)
      );
    });
    if (!style) break;
    prefixes.push(style);
    current = current.map((line) => (style.pattern.test(line) ? line.replace(style.pattern, '') : line));
  }
  // Indentation before a launcher's prefix is the paste's, never the tool's: it goes even when kept.
  const outerIndent = options.keepIndent && prefixes.length === 0 ? 0 : outer;
  const indent = options.keepIndent || prefixes.length === 0 ? 0 : commonIndent(current);
  return { outerIndent, prefixes, byHost: prefixes.some((style) => style.host), indent };
}

/** Spaces every content line (not prompts, elisions, blanks) starts with; 0 below two. */
function commonIndent(lines: readonly string[]): number {
  let indent = Number.POSITIVE_INFINITY;
  for (const line of lines) {
    const classified = classify(line);
    if (classified.role !== 'content') continue;
    indent = Math.min(indent, /^ */.exec(classified.text)![0].length);
  }
  // One leading space is part of several tools' own layout (perftest, iperf3 rows); pasted indentation is more.
  return Number.isFinite(indent) && indent >= 2 ? indent : 0;
}

function dedent(line: string, spaces: number): string {
  const leading = /^ */.exec(line)![0].length;
  return line.slice(Math.min(leading, spaces));
}

export interface NormalisedLine {
  role: LineRole;
  text: string;
  host: string | null;
}

/** One line through the plan: what streaming readers use line by line. */
export function normaliseLine(plan: PastePlan, raw: string): NormalisedLine {
  const cleaned = cleanLine(raw);
  const { text: unprefixed, host } = stripPrefixes(
    plan.outerIndent > 0 ? dedent(cleaned, plan.outerIndent) : cleaned,
    plan.prefixes,
  );
  const classified = classify(unprefixed);
  const text =
    classified.role === 'content' && plan.indent > 0 ? dedent(classified.text, plan.indent) : classified.text;
  return { role: classified.role, text, host };
}

/** True when the plan leaves every line as it is (the common case of a clean capture). */
export function isIdentityPlan(plan: PastePlan): boolean {
  return plan.prefixes.length === 0 && plan.indent === 0 && plan.outerIndent === 0;
}

interface Building {
  host: string | null;
  lines: PasteLine[];
  /** Indexes (in lines) of the `$ COMMAND` lines kept from prompts. */
  prompts: Set<number>;
  warnings: ParseWarning[];
}

/** A JSON document (nccl-tests -J, iperf3 -J, rdma -j, config_db) must start the text: its command lines go. */
function withoutCommandsBeforeJson(building: Building): PasteLine[] {
  const first = building.lines.findIndex(
    (line, index) => !building.prompts.has(index) && line.text.trim() !== '',
  );
  if (first < 0 || !/^\s*[[{]/.test(building.lines[first]!.text)) return building.lines;
  return building.lines.filter((_, index) => !building.prompts.has(index));
}

/** Split a paste into one segment per host (one segment when there are no host prefixes). */
export function normalisePaste(text: string, options: PasteOptions = {}): PasteSegment[] {
  const rawLines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) rawLines.pop();
  const plan = planPaste(rawLines, options);
  const preamble: Building = { host: null, lines: [], prompts: new Set(), warnings: [] };
  const byHost = new Map<string, Building>();
  let current: Building = preamble;
  let changed = !isIdentityPlan(plan);
  rawLines.forEach((raw, index) => {
    const line = index + 1;
    const normalised = normaliseLine(plan, raw);
    if (plan.byHost && normalised.host !== null) {
      let building = byHost.get(normalised.host);
      if (!building) {
        building = { host: normalised.host, lines: [], prompts: new Set(), warnings: [] };
        byHost.set(normalised.host, building);
      }
      current = building;
    }
    if (normalised.role === 'elision') {
      current.warnings.push({
        line,
        message: `"${raw.trim().slice(0, 20)}" marks lines left out of the paste: their facts are missing`,
      });
      changed = true;
      return;
    }
    if (normalised.role === 'prompt' && normalised.text === '') {
      changed = true;
      return;
    }
    if (normalised.text !== raw) changed = true;
    if (normalised.role === 'prompt') current.prompts.add(current.lines.length);
    current.lines.push({ text: normalised.text, line });
  });
  const lastLine = rawLines.length;
  const finish = (building: Building, extra: Building | null): PasteSegment => {
    const merged: Building = extra
      ? {
          ...building,
          lines: [...extra.lines, ...building.lines],
          prompts: new Set([
            ...extra.prompts,
            ...[...building.prompts].map((index) => index + extra.lines.length),
          ]),
        }
      : building;
    const lines = withoutCommandsBeforeJson(merged);
    if (lines.length !== merged.lines.length) changed = true;
    const holdsLast = lines.at(-1)?.line === lastLine;
    return {
      host: building.host,
      lines,
      endsWithNewline: endsWithNewline || !holdsLast,
      changed: changed || (extra?.lines.length ?? 0) > 0,
      warnings: [...building.warnings],
    };
  };
  if (byHost.size === 0) return [finish(preamble, null)];
  // Lines before the first host prefix (the pdsh command, a title) belong to every host.
  return [...byHost.values()].map((building) => ({
    ...finish(building, preamble),
    warnings: [...preamble.warnings, ...building.warnings],
  }));
}

/** The segment as text for a parser: its lines, and a final line end when the paste had one there. */
export function segmentText(segment: PasteSegment): string {
  const body = segment.lines.map((line) => line.text).join('\n');
  return segment.endsWithNewline && segment.lines.length > 0 ? `${body}\n` : body;
}
