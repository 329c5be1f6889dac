/**
 * Line hygiene and classification for nccl-tests text output. nccl-tests prints through printf
 * (src/util.cu, src/common.cu), so its lines reach us mixed with launcher prefixes
 * (Open MPI `--tag-output` `[1,0]<stdout>:`, MPICH/Intel MPI `-l` `[0] `, Slurm `srun -l` `0: `),
 * NCCL's own log lines (`host:pid:tid [dev] NCCL INFO ...`) and anything else a job prints.
 */
import { COLLECTIVE_OPS } from '../core/collectives.js';

/** A launcher tag anywhere in a line: Open MPI `[1,0]<stdout>:` or `[0]`-style rank tags (MPICH, Intel MPI). */
const LAUNCHER_TAG = /\[\d+(?:,\d+)*\](?:<std(?:out|err)>)?:?/g;
/** Slurm `srun --label` (`  3: `) or pdsh/clush host labels (`node07: `) at the start of a line. */
const LEADING_LABEL = /^\s*(?:\d+|[A-Za-z][\w.-]*):\s/;
/** NCCL's debug-log prefix `host:pid:tid [cudaDev] `, which may start anywhere when output interleaves. */
const NCCL_LOG_PREFIX = /\S*:\d+:\d+ \[\d+\] (?:NCCL (?:INFO|WARN|TRACE|ABORT|ERROR)|[\w./-]+:\d+ NCCL)/;
const NCCL_VERSION = /NCCL version (\d+\.\d+\.\d+)/;

export type LineClass =
  | { type: 'blank' }
  | { type: 'nccl-log'; ncclVersion: string | null; fragmentBefore: string | null }
  | { type: 'nccl-version'; version: string }
  | { type: 'comment'; text: string }
  | { type: 'data'; text: string }
  | { type: 'other'; text: string };

/**
 * Remove launcher prefixes and tags. Tags recur mid-line when two ranks' output interleaves,
 * so they are removed wherever they appear; NCCL's `[0]` device tag survives because NCCL log
 * lines are recognised before this runs.
 */
export function stripLauncherTags(line: string): string {
  let text = line;
  if (text.includes('[')) text = text.replace(LAUNCHER_TAG, ' ');
  const label = LEADING_LABEL.exec(text);
  if (label) {
    const rest = text.slice(label[0].length).trimStart();
    // Only a label when what follows is nccl-tests text: `hostname: # nThread`, `0:    1024 ...`.
    if (rest.startsWith('#') || /^\d/.test(rest)) text = rest;
  }
  return text;
}

function ncclLogInfo(text: string): { index: number; version: string | null } | null {
  if (!text.includes('NCCL')) return null;
  const match = NCCL_LOG_PREFIX.exec(text);
  if (!match) return null;
  return { index: match.index, version: NCCL_VERSION.exec(text)?.[1] ?? null };
}

/** Classify one raw input line (without its line terminator). */
export function classifyLine(raw: string): LineClass {
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line.trim() === '') return { type: 'blank' };
  // Open MPI tags come before an NCCL log line too: strip leading tags first, then look for NCCL's prefix.
  const log = ncclLogInfo(line);
  if (log) {
    const before = stripLauncherTags(line.slice(0, log.index)).trim();
    return { type: 'nccl-log', ncclVersion: log.version, fragmentBefore: /^\d/.test(before) ? before : null };
  }
  line = stripLauncherTags(line).trim();
  if (line === '') return { type: 'blank' };
  const first = line.charCodeAt(0);
  if (first === 35 /* # */) return { type: 'comment', text: line };
  if (first >= 48 && first <= 57) return { type: 'data', text: line };
  if (line.startsWith('NCCL version ')) {
    const version = NCCL_VERSION.exec(line)?.[1];
    if (version) return { type: 'nccl-version', version };
  }
  return { type: 'other', text: line };
}

/** nccl-tests' binaries: the vocabulary's collectives and the tests beyond it (src/Makefile BIN_FILES_LIST). */
const PERF_BINARY = new RegExp(
  `\\b(${[...COLLECTIVE_OPS, 'alltoallv', 'scatter', 'gather', 'hypercube'].join('|')})_perf(?:_mpi)?\\b`,
);

/** The collective named by an nccl-tests binary in a command line or path (`/opt/nccl-tests/bin/all_reduce_perf`). */
export function collectiveFromCommand(text: string): string | null {
  if (!text.includes('_perf')) return null;
  return PERF_BINARY.exec(text)?.[1] ?? null;
}

/** `all_reduce_perf` or `./build/all_reduce_perf_mpi` to `all_reduce`. */
export function collectiveFromProgram(program: string): string {
  const base = program.trim().split('/').pop() ?? program;
  return base.replace(/_perf(?:_mpi)?$/, '');
}

/**
 * A copy of `text` that does not share memory with the chunk it was cut from. V8 represents a slice
 * of 13 or more characters as a view into its parent string, so a device name kept from a 1 MiB read
 * chunk would keep the whole chunk alive; facts retained across a 100 MB log must own their strings.
 */
export function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}
