/**
 * Open MPI host files (`--hostfile FILE` for `accept`): one host per line, optionally `slots=N` and
 * `max_slots=M`; `#` starts a comment; blank lines are ignored.
 *
 * Format: https://docs.prrte.org/en/latest/hosts/hostfiles.html ("one node name on each line,
 * optionally including a designated number of slots"; "Blank lines and lines beginning with a #
 * are ignored") and the Open MPI 4.1 mpirun(1) page https://www.open-mpi.org/doc/current/man1/mpirun.1.php
 * (`max_slots`). Key spellings follow Open MPI's own lexer
 * (open-mpi/ompi@19fcf6a8a3c733306e3ce5179145e649d8a85414 3rd-party/prrte/src/util/hostfile/hostfile_lex.l:
 * `slots`, `count` and `cpu` for slots; `max_slots`, `max-slots`, `slots_max`, `slots-max` and the
 * cpu/count variants for the maximum; whitespace around `=` is allowed there).
 * Open MPI merges a host listed twice; we reject it, naming both lines, because in an acceptance
 * run a duplicated host is almost always a typo that would hide the host that was meant.
 */
import { InputError } from '../core/errors.js';

export interface HostfileEntry {
  host: string;
  /** Absent when the line gives none (Open MPI then counts the host's cores). */
  slots?: number;
  maxSlots?: number;
  /** 1-based line in the file. */
  line: number;
}

const SLOTS_KEYS = new Set(['slots', 'count', 'cpu']);
const MAX_SLOTS_KEYS = new Set([
  'max_slots',
  'max-slots',
  'slots_max',
  'slots-max',
  'max_cpu',
  'max-cpu',
  'cpu_max',
  'cpu-max',
  'max_count',
  'max-count',
  'count_max',
  'count-max',
]);

/** Host names as the lexer accepts them: optional `user@`, then a name, IPv4 or IPv6 address. */
const HOST_PATTERN =
  /^(?:[A-Za-z0-9][A-Za-z0-9_-]*@)?(?:[A-Za-z0-9][A-Za-z0-9_.-]*|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]+)$/;

function positiveInteger(text: string, where: string, field: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new InputError(`${where}: ${field}=${text || '(empty)'}: expected a positive integer`);
  }
  return Number(text);
}

function parseLine(raw: string, file: string, line: number): HostfileEntry | undefined {
  const hash = raw.indexOf('#');
  const text = (hash >= 0 ? raw.slice(0, hash) : raw).replace(/\s*=\s*/g, '=').trim();
  if (text === '') return undefined;
  const where = `${file}:${line}`;
  const [host = '', ...fields] = text.split(/\s+/);
  if (host.includes('='))
    throw new InputError(`${where}: "${host}": expected a host name before ${host.split('=')[0] ?? ''}=`);
  if (!HOST_PATTERN.test(host))
    throw new InputError(`${where}: host "${host}": expected a host name or address`);
  const entry: HostfileEntry = { host, line };
  for (const field of fields) {
    const equals = field.indexOf('=');
    const key = equals < 0 ? field : field.slice(0, equals);
    const value = equals < 0 ? '' : field.slice(equals + 1);
    if (equals < 0) {
      throw new InputError(`${where}: field "${field}": expected key=value (slots=N or max_slots=M)`);
    } else if (SLOTS_KEYS.has(key)) {
      if (entry.slots !== undefined) throw new InputError(`${where}: ${key}: slots given twice`);
      entry.slots = positiveInteger(value, where, key);
    } else if (MAX_SLOTS_KEYS.has(key)) {
      if (entry.maxSlots !== undefined) throw new InputError(`${where}: ${key}: max_slots given twice`);
      entry.maxSlots = positiveInteger(value, where, key);
    } else {
      throw new InputError(`${where}: unknown field "${key}": expected slots=N or max_slots=M`);
    }
  }
  if (entry.slots !== undefined && entry.maxSlots !== undefined && entry.maxSlots < entry.slots) {
    throw new InputError(`${where}: max_slots=${entry.maxSlots}: expected at least slots=${entry.slots}`);
  }
  return entry;
}

/** Parse an Open MPI host file; `file` names it in errors (`hosts.txt:3: ...`). */
export function parseHostfile(text: string, file: string): HostfileEntry[] {
  const entries: HostfileEntry[] = [];
  const firstLine = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const entry = parseLine(lines[index] ?? '', file, index + 1);
    if (!entry) continue;
    const earlier = firstLine.get(entry.host);
    if (earlier !== undefined) {
      throw new InputError(
        `${file}:${entry.line}: host "${entry.host}" is already listed at ${file}:${earlier}`,
      );
    }
    firstLine.set(entry.host, entry.line);
    entries.push(entry);
  }
  if (entries.length === 0)
    throw new InputError(`${file}: no hosts: expected one host per line (host slots=N)`);
  return entries;
}
