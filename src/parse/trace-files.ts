/**
 * Kineto traces on disk to one TraceRankFacts per rank: `.json`, `.json.gz`, a folder of them, or
 * a tarball of ranks (`.tar.gz`, `.tgz`, `.tar`; members `*.json` or `*.json.gz`). Compression and
 * archives are recognised by their bytes (gzip magic 1f 8b, RFC 1952 section 2.3.1; ustar header),
 * not by the name, and everything streams: gunzip, tar, then the byte scanner, so a trace of GBs
 * reads in flat memory. A trace without `distributedInfo.rank` takes its rank from the file name
 * (`rank-3`, `rank_3`, `worker3`); a trace with neither, or a file that is no trace, is refused
 * with an InputError naming it.
 */
import { constants, createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../core/errors.js';
import {
  FLIGHT_RECORDER_NAME,
  looksLikeFlightRecorder,
  readFlightRecorderStream,
  shareFlightRecorderClock,
} from './flight-recorder-files.js';
import { KinetoTraceReader, type KinetoOutcome } from './kineto-reader.js';
import { looksLikeTar, tarMembers, TarFormatError } from './tar.js';
import type { TraceRankFacts } from './trace-types.js';
import type { ParseWarning } from './types.js';

const CHUNK_BYTES = 1 << 20;
const TRACE_NAME = /\.(json|json\.gz)$/i;
const ARCHIVE_NAME = /\.(tar\.gz|tgz|tar)$/i;

/** One rank read from a file or an archive member, before the rank rule is applied. */
interface ReadTrace {
  label: string;
  outcome: KinetoOutcome;
}

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** The first bytes of a chunked source, and the whole source again (those bytes included). */
async function peek(
  source: AsyncIterable<Buffer>,
  bytes: number,
): Promise<{ head: Buffer; all: AsyncIterable<Buffer> }> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let length = 0;
  let finished = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      finished = true;
      break;
    }
    seen.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(seen, length).subarray(0, bytes);
  const all = (async function* () {
    yield* seen;
    if (finished) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  return { head, all };
}

function gunzip(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const inflate = createGunzip({ chunkSize: 256 * 1024 });
  const input = Readable.from(source, { objectMode: false });
  input.on('error', (error) => inflate.destroy(error));
  return input.pipe(inflate) as AsyncIterable<Buffer>;
}

function describeZlib(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_') ? (error as Error).message : null;
}

/** Feed a (decompressed) JSON source to a reader; a gzip stream cut short ends the read with a warning. */
async function readJson(label: string, source: AsyncIterable<Buffer>): Promise<ReadTrace> {
  const reader = new KinetoTraceReader(label);
  let cut: string | null = null;
  try {
    for await (const chunk of source) {
      reader.push(chunk);
      if (reader.done) break;
    }
  } catch (error) {
    const zlib = describeZlib(error);
    if (zlib === null) throw error;
    cut = zlib;
  }
  const outcome = reader.finish();
  if (cut !== null && outcome.isTrace)
    outcome.warnings.push(`gzip data ends early (${cut}): read what came before`);
  if (cut !== null && !outcome.isTrace)
    return { label, outcome: { isTrace: false, reason: `gzip data is damaged (${cut})` } };
  return { label, outcome };
}

/** A source that may be gzip, tar or JSON: one trace for JSON, one per JSON member for a tar. */
async function readAny(
  label: string,
  source: AsyncIterable<Buffer>,
  insideArchive: boolean,
): Promise<ReadTrace[]> {
  let { head, all } = await peek(source, 512);
  if (isGzip(head)) ({ head, all } = await peek(gunzip(all), 512));
  // A PyTorch NCCL flight-recorder dump (pickle, PROTO opcode 0x80): flight-recorder.ts.
  if (looksLikeFlightRecorder(head))
    return [
      {
        label,
        outcome: {
          isTrace: true,
          facts: await readFlightRecorderStream(all, label),
          warnings: [],
          hasDistributedInfo: false,
        },
      },
    ];
  const first = head.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
  if (!insideArchive && first !== 0x7b && looksLikeTar(head)) return readTar(label, all);
  return [await readJson(label, all)];
}

async function readTar(label: string, source: AsyncIterable<Buffer>): Promise<ReadTrace[]> {
  const traces: ReadTrace[] = [];
  try {
    for await (const member of tarMembers(source)) {
      if (!TRACE_NAME.test(member.name) && !FLIGHT_RECORDER_NAME.test(member.name)) continue;
      traces.push(...(await readAny(`${label}:${member.name}`, member.body, true)));
    }
  } catch (error) {
    if (error instanceof TarFormatError)
      throw new InputError(`${label}: not a readable tar archive (${error.message})`);
    const zlib = describeZlib(error);
    if (zlib !== null) throw new InputError(`${label}: gzip data is damaged (${zlib})`);
    throw error;
  }
  if (traces.length === 0) throw new InputError(`${label}: no *.json or *.json.gz members in this archive`);
  return traces;
}

function ioError(file: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : error instanceof Error
          ? error.message
          : String(error);
  return new InputError(`${file}: cannot read (${reason})`);
}

async function readPath(file: string): Promise<ReadTrace[]> {
  const info = await stat(file).catch((error: unknown) => {
    throw ioError(file, error);
  });
  if (!info.isFile()) throw new InputError(`${file}: cannot read (not a regular file)`);
  try {
    return await readAny(file, createReadStream(file, { highWaterMark: CHUNK_BYTES }), false);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const zlib = describeZlib(error);
    if (zlib !== null) throw new InputError(`${file}: gzip data is damaged (${zlib})`);
    if (error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string')
      throw ioError(file, error);
    throw error;
  }
}

/** `rank-3`, `rank_3`, `rank3`, `worker3`, `worker_3` in the file's base name. */
export function rankFromFileName(label: string): number | null {
  const name = basename(label.includes(':') ? label.slice(label.lastIndexOf(':') + 1) : label);
  const match = /(?:^|[^a-z])rank[-_]?(\d+)/i.exec(name) ?? /(?:^|[^a-z])worker[-_]?(\d+)/i.exec(name);
  if (!match) return null;
  const rank = Number(match[1]);
  return Number.isSafeInteger(rank) ? rank : null;
}

/** The rank rule: distributedInfo, else the file name, else an InputError naming the file. */
function toRankFacts(trace: ReadTrace): { facts: TraceRankFacts; warnings: string[] } {
  const { label, outcome } = trace;
  if (!outcome.isTrace) throw new InputError(`${label}: not a PyTorch profiler trace (${outcome.reason})`);
  const facts = outcome.facts;
  if (facts.rank === null) {
    const fromName = rankFromFileName(label);
    if (fromName === null) {
      const why = outcome.hasDistributedInfo
        ? 'its distributedInfo has no "rank"'
        : 'the trace has no distributedInfo';
      throw new InputError(`${label}: no rank: ${why}, and the file name has none (rank-N, rank_N, workerN)`);
    }
    facts.rank = fromName;
    facts.rankSource = 'file-name';
  }
  return { facts, warnings: outcome.warnings };
}

async function expand(path: string): Promise<string[]> {
  const info = await stat(path).catch((error: unknown) => {
    throw ioError(path, error);
  });
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const files: string[] = [];
  for (const entry of entries) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await expand(full)));
    else if (
      entry.isFile() &&
      (TRACE_NAME.test(entry.name) || ARCHIVE_NAME.test(entry.name) || FLIGHT_RECORDER_NAME.test(entry.name))
    )
      files.push(full);
  }
  if (files.length === 0)
    throw new InputError(`${path}: no trace files in this folder (*.json, *.json.gz, *.tar.gz)`);
  return files;
}

/**
 * Every rank of the given files, folders and tarballs, in argument order (folders sorted by name).
 * Refuses a file that is no trace, and a trace with no rank, with an InputError naming it.
 */
export async function readTraceFiles(paths: string[]): Promise<TraceRankFacts[]> {
  const ranks: TraceRankFacts[] = [];
  for (const path of paths) {
    for (const file of await expand(path)) {
      for (const trace of await readPath(file)) {
        const { facts, warnings } = toRankFacts(trace);
        if (warnings.length > 0) facts.warnings = warnings;
        ranks.push(facts);
      }
    }
  }
  shareFlightRecorderClock(ranks);
  return ranks;
}

/** For parse-file: one parsed entry per rank of a trace file (JSON, gzip or tarball). */
export async function parseTraceFile(
  file: string,
): Promise<{ file: string; kind: 'pytorch-trace'; facts: TraceRankFacts; warnings: ParseWarning[] }[]> {
  return (await readPath(file)).map((trace) => {
    const { facts, warnings } = toRankFacts(trace);
    return {
      file: trace.label,
      kind: 'pytorch-trace' as const,
      facts,
      warnings: warnings.map((message) => ({ message })),
    };
  });
}

/** True for a regular file starting with gzip's magic, a tar header or a pickle (a flight-recorder dump): only the trace reader reads those. */
export async function isCompressedOrArchive(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    if (!(await handle.stat()).isFile()) return false;
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    const bytes = head.subarray(0, bytesRead);
    return isGzip(bytes) || looksLikeTar(bytes) || looksLikeFlightRecorder(bytes);
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}
