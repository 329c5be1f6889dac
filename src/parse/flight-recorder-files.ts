/**
 * Flight-recorder dumps among trace files: the names a folder or tarball of them holds, the
 * first-bytes test the trace-file reader dispatches on, reading a dump from a stream, and putting
 * several dumps on one clock zero (src/parse/trace-files.ts calls these).
 */
import { InputError } from '../core/errors.js';
import { microsSince, readFlightRecorder } from './flight-recorder.js';
import { looksLikePickle } from './pickle.js';
import type { TraceRankFacts } from './trace-types.js';

/** Dumps are a few MB (TORCH_NCCL_TRACE_BUFFER_SIZE entries); a bigger pickle is not one. */
const MAX_DUMP_BYTES = 1 << 30;

/**
 * File names a folder or tarball of dumps holds: TORCH_NCCL_DEBUG_INFO_TEMP_FILE + rank
 * (default /tmp/nccl_trace_rank_<rank>), or a `.pkl` / `.pickle` copy.
 */
export const FLIGHT_RECORDER_NAME = /(?:rank[-_]?\d+|\.pkl|\.pickle)$/i;

/** True when the first bytes are a protocol 2+ pickle: the trace-file reader's dispatch. */
export function looksLikeFlightRecorder(head: Uint8Array): boolean {
  return looksLikePickle(head);
}

/** readFlightRecorder over a chunked source (a file or tar member stream). */
export async function readFlightRecorderStream(
  source: AsyncIterable<Buffer>,
  file: string,
): Promise<TraceRankFacts> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of source) {
    length += chunk.length;
    if (length > MAX_DUMP_BYTES)
      throw new InputError(
        `${file}: a pickle of more than ${MAX_DUMP_BYTES} bytes is not a flight-recorder dump`,
      );
    chunks.push(chunk);
  }
  return readFlightRecorder(Buffer.concat(chunks, length), file);
}

/**
 * Put flight-recorder ranks read together on one clock zero: the smallest clockBaseNs among them.
 * Each dump's times count from its own first timestamp; the recorder's clock is the system clock
 * in epoch nanoseconds (c10::getTime), shared by a host's ranks, so after this their startUs
 * compare directly. Recomputed from the exact startNs, so nothing is lost. Other formats untouched.
 */
export function shareFlightRecorderClock(ranks: TraceRankFacts[]): void {
  const dumps = ranks.filter(
    (facts) => facts.format === 'flight-recorder' && facts.clockBaseNs !== undefined,
  );
  if (dumps.length < 2) return;
  const base = dumps.reduce((least, facts) => {
    const own = BigInt(facts.clockBaseNs!);
    return own < least ? own : least;
  }, BigInt(dumps[0]!.clockBaseNs!));
  for (const facts of dumps) {
    const shiftNs = BigInt(facts.clockBaseNs!) - base;
    if (shiftNs === 0n) continue;
    for (const c of facts.collectives) {
      c.startUs =
        c.startNs !== undefined ? microsSince(BigInt(c.startNs), base) : c.startUs + Number(shiftNs) / 1000;
    }
    facts.clockBaseNs = base.toString();
  }
}
