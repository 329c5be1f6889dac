#!/usr/bin/env node
/**
 * One host of the synchronised-read incast (Chen et al., WREN 2009), started by `aifabric testbed
 * incast` in hosts 0..S of the testbed (ip netns exec, RANK and MASTER_ADDR set):
 *   node incast-worker.js --senders S --block BYTES --rounds R --port PORT --timeout SECONDS
 * RANK 0 is the client: each round it asks the S servers (RANK 1..S) for one block each and starts
 * the next round only when every block has arrived. When the rounds are done it reads the kernel's
 * own minimum RTT of its connections (`ss -tin`, the `minrtt` of tcp_info, the figure BBR uses) and
 * prints one JSON line: senders, blockBytes, rounds, seconds, goodputBps, minRttUs, startGapUs. Each
 * server notes when each request reached it (CLOCK_MONOTONIC, one clock for every namespace of the
 * machine) and hands the times over at the end ('t'); startGapUs is the median over rounds of the
 * spread of the servers' starts divided by S - 1: how far apart the servers, woken one by one on the
 * machine's few cores, begin their blocks (null with one server).
 * A standalone program (not part of the testbed room's surface): it runs inside the namespaces.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { median } from '../core/stats.js';

function numberArg(name: string): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`incast-worker: --${name} needs a whole number of at least 1\n`);
    process.exit(2);
  }
  return value;
}

const senders = numberArg('senders');
const block = numberArg('block');
const rounds = numberArg('rounds');
const port = numberArg('port');
const timeoutS = numberArg('timeout');
const rank = Number(process.env.RANK ?? 0);
const master = process.env.MASTER_ADDR ?? '127.0.0.1';

// A hung round must not hang the run: give up (exit 3, an environment problem) after the timeout.
setTimeout(() => {
  process.stderr.write(`incast-worker rank ${rank}: gave up after ${timeoutS} s\n`);
  process.exit(3);
}, timeoutS * 1000).unref();

/** The smallest `minrtt` (ms in ss's output) over the established connections of this port, in us. */
function kernelMinRttUs(): Promise<number | null> {
  return new Promise((resolve) => {
    execFile(
      'ss',
      ['-tinH', 'state', 'established', 'sport', '=', `:${port}`],
      { timeout: 5000, encoding: 'utf8' },
      (error, stdout) => {
        const values = error
          ? []
          : [...stdout.matchAll(/minrtt:([\d.]+)/g)].map((match) => Number(match[1]) * 1000);
        resolve(values.length ? Math.min(...values) : null);
      },
    );
  });
}

/** Median over rounds of (latest start - earliest start) / (servers - 1), us; null with one server. */
function startGapUs(startsUs: number[][]): number | null {
  if (startsUs.length < 2) return null;
  const gaps: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const times = startsUs.map((starts) => starts[round]).filter((t): t is number => t !== undefined);
    if (times.length < 2) continue;
    gaps.push((Math.max(...times) - Math.min(...times)) / (times.length - 1));
  }
  return gaps.length === 0 ? null : median(gaps);
}

/** Each round's start offsets (us from its earliest start), ascending; rounds a server did not stamp are left out. */
function startOffsetsUs(startsUs: number[][]): number[][] {
  const out: number[][] = [];
  if (startsUs.length < 2) return out;
  for (let round = 0; round < rounds; round++) {
    const times = startsUs.map((starts) => starts[round]);
    if (times.some((t) => t === undefined)) continue;
    const first = Math.min(...(times as number[]));
    out.push((times as number[]).map((t) => t - first).sort((a, b) => a - b));
  }
  return out;
}

function client(): void {
  const sockets: net.Socket[] = [];
  let received = 0;
  let roundDone = (): void => undefined;
  // After the rounds each server sends its start times as one JSON line.
  let collecting = false;
  const texts: string[] = [];
  let textsDone = (): void => undefined;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const index = sockets.push(socket) - 1;
    texts[index] = '';
    socket.on('data', (chunk: Buffer) => {
      if (collecting) {
        texts[index] += chunk.toString('utf8');
        if (texts.every((text) => text.endsWith('\n'))) textsDone();
        return;
      }
      received += chunk.length;
      if (received >= senders * block) roundDone();
    });
    if (sockets.length === senders) void runRounds();
  });
  server.listen(port, master);
  async function runRounds(): Promise<void> {
    const start = performance.now();
    for (let round = 0; round < rounds; round++) {
      received = 0;
      const done = new Promise<void>((resolve) => (roundDone = resolve));
      for (const socket of sockets) socket.write('r');
      await done;
    }
    const seconds = (performance.now() - start) / 1000;
    collecting = true;
    const collected = new Promise<void>((resolve) => (textsDone = resolve));
    for (const socket of sockets) socket.write('t');
    await collected;
    const starts = texts.map((text) => JSON.parse(text) as number[]);
    const gapUs = startGapUs(starts);
    const minRttUs = await kernelMinRttUs();
    process.stdout.write(
      `${JSON.stringify({ senders, blockBytes: block, rounds, seconds, goodputBps: (senders * block * rounds * 8) / seconds, minRttUs, startGapUs: gapUs, startOffsetsUs: startOffsetsUs(starts) })}\n`,
    );
    for (const socket of sockets) socket.end();
    server.close();
  }
}

/** The client's last request: 't' (the servers' start times), after the rounds' 'r's. */
const T_BYTE = 't'.charCodeAt(0);

function sender(): void {
  const payload = Buffer.alloc(block, rank);
  const connect = (): void => {
    const socket = net.connect({ host: master, port }, () => socket.setNoDelay(true));
    // The client may not listen yet: try again shortly.
    socket.on('error', () => setTimeout(connect, 50));
    const startsUs: number[] = [];
    socket.on('data', (request: Buffer) => {
      for (const byte of request) {
        if (byte === T_BYTE) socket.write(`${JSON.stringify(startsUs)}\n`);
        else {
          startsUs.push(Number(process.hrtime.bigint() / 1000n));
          socket.write(payload);
        }
      }
    });
    socket.on('end', () => process.exit(0));
  };
  connect();
}

if (rank === 0) client();
else if (rank <= senders) sender();
