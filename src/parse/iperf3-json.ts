/**
 * iperf3 `-J` output. Field names follow iperf3 src/iperf_api.c (start.test_start, intervals[].
 * streams/sum, end.sum_sent, end.sum_received, end.sum for UDP); everything is read defensively
 * because a killed iperf3 leaves a JSON document without its `end`.
 */
import { emptyIperf3Facts, totalFromSummaries } from './iperf3-text.js';
import type { Iperf3Facts, Iperf3Measurement, Iperf3Side } from './iperf3-types.js';
import type { ParseWarning } from './types.js';

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function measurementFrom(
  object: Json,
  stream: number | 'sum',
  side: Iperf3Side | null,
): Iperf3Measurement | undefined {
  const start = num(object.start);
  const end = num(object.end);
  const bytes = num(object.bytes);
  const bitsPerSecond = num(object.bits_per_second);
  if (start === null || end === null || bytes === null || bitsPerSecond === null) return undefined;
  return {
    stream,
    startS: start,
    endS: end,
    transferBytes: bytes,
    rateGbps: bitsPerSecond / 1e9,
    retransmits: num(object.retransmits),
    cwndBytes: num(object.snd_cwnd),
    jitterMs: num(object.jitter_ms),
    lostDatagrams: num(object.lost_packets),
    totalDatagrams: num(object.packets),
    side,
    omitted: object.omitted === true,
  };
}

function streamId(object: Json): number | 'sum' {
  return num(object.socket) ?? 'sum';
}

export function parseIperf3Json(text: string): { facts: Iperf3Facts; warnings: ParseWarning[] } {
  const warnings: ParseWarning[] = [];
  const facts = emptyIperf3Facts('json');
  let document: Json | undefined;
  try {
    document = asObject(JSON.parse(text));
  } catch (error) {
    warnings.push({ message: `JSON cut short or malformed: ${(error as Error).message}` });
    return { facts, warnings };
  }
  if (!document) {
    warnings.push({ message: 'JSON document is not an object' });
    return { facts, warnings };
  }
  const start = asObject(document.start);
  facts.version = str(start?.version);
  const testStart = asObject(start?.test_start);
  const protocol = str(testStart?.protocol);
  facts.protocol = protocol === 'UDP' ? 'udp' : protocol === 'TCP' ? 'tcp' : null;
  facts.reverse = num(testStart?.reverse) === 1;
  // Only the client's JSON has `connecting_to`; the server's has `accepted_connection`.
  if (start?.connecting_to !== undefined) facts.role = 'client';
  else if (start?.accepted_connection !== undefined) facts.role = 'server';
  for (const entry of asArray(start?.connected)) {
    const connection = asObject(entry);
    const id = num(connection?.socket);
    if (!connection || id === null) continue;
    facts.streams.push({
      id,
      localHost: str(connection.local_host),
      localPort: num(connection.local_port),
      remoteHost: str(connection.remote_host),
      remotePort: num(connection.remote_port),
    });
  }
  for (const entry of asArray(document.intervals)) {
    const interval = asObject(entry);
    for (const streamEntry of asArray(interval?.streams)) {
      const stream = asObject(streamEntry);
      const measurement = stream && measurementFrom(stream, streamId(stream), null);
      if (measurement) facts.intervals.push(measurement);
    }
    const sum = asObject(interval?.sum);
    const measurement = sum && measurementFrom(sum, 'sum', null);
    // A single stream's sum repeats the stream; keep it only when several streams ran.
    if (measurement && asArray(interval?.streams).length > 1) facts.intervals.push(measurement);
  }
  const end = asObject(document.end);
  if (end) {
    facts.complete = true;
    for (const entry of asArray(end.streams)) {
      const stream = asObject(entry);
      for (const [key, side] of [
        ['sender', 'sender'],
        ['receiver', 'receiver'],
        ['udp', null],
      ] as const) {
        const part = asObject(stream?.[key]);
        const measurement = part && measurementFrom(part, streamId(part), side);
        if (measurement) facts.summaries.push(measurement);
      }
    }
    for (const [key, side] of [
      ['sum_sent', 'sender'],
      ['sum_received', 'receiver'],
      ['sum', null],
    ] as const) {
      const part = asObject(end[key]);
      const measurement = part && measurementFrom(part, 'sum', side);
      if (measurement) facts.summaries.push(measurement);
    }
  } else {
    warnings.push({ message: 'no "end" object: the test did not finish' });
  }
  const error = str(document.error);
  if (error !== null) {
    facts.errors.push(error);
    warnings.push({ message: `iperf3 says: ${error}` });
  }
  facts.total = totalFromSummaries(facts.summaries);
  return { facts, warnings };
}
