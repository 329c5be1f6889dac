#!/usr/bin/env node
/**
 * One host of the synchronised-read incast (Chen et al., WREN 2009), started by `aifabric testbed
 * incast` in hosts 0..S of the testbed (ip netns exec, RANK and MASTER_ADDR set):
 *   node incast-worker.js --senders S --block BYTES --rounds R --port PORT --timeout SECONDS
 * RANK 0 is the client: each round it asks the S servers (RANK 1..S) for one block each and starts
 * the next round only when every block has arrived. When the rounds are done it reads the kernel's
 * own minimum RTT of its connections (`ss -tin`, the `minrtt` of tcp_info, the figure BBR uses) and
 * prints one JSON line: senders, blockBytes, rounds, seconds, goodputBps, minRttUs.
 * A standalone program (not part of the testbed room's surface): it runs inside the namespaces.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';

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

function client(): void {
  const sockets: net.Socket[] = [];
  let received = 0;
  let roundDone = (): void => undefined;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
    socket.on('data', (chunk: Buffer) => {
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
    const minRttUs = await kernelMinRttUs();
    process.stdout.write(
      `${JSON.stringify({ senders, blockBytes: block, rounds, seconds, goodputBps: (senders * block * rounds * 8) / seconds, minRttUs })}\n`,
    );
    for (const socket of sockets) socket.end();
    server.close();
  }
}

function sender(): void {
  const payload = Buffer.alloc(block, rank);
  const connect = (): void => {
    const socket = net.connect({ host: master, port }, () => socket.setNoDelay(true));
    // The client may not listen yet: try again shortly.
    socket.on('error', () => setTimeout(connect, 50));
    socket.on('data', (request: Buffer) => {
      for (let i = 0; i < request.length; i++) socket.write(payload);
    });
    socket.on('end', () => process.exit(0));
  };
  connect();
}

if (rank === 0) client();
else if (rank <= senders) sender();
