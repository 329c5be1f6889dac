#!/usr/bin/env node
// One host of the synchronised-read incast (Chen et al., WREN 2009), run on every testbed host by
// `aifabric testbed run -- node bench/tcp-incast-worker.mjs --senders S --block B --rounds R`.
// RANK 0 is the client: each round it asks the S servers (RANK 1..S) for one B-byte block each
// and starts the next round only when all blocks have arrived. Ranks above S exit at once.
// Prints one JSON line (rank 0): senders, block, rounds, seconds, goodputBps.
import net from 'node:net';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const senders = arg('senders', 1);
const block = arg('block', 256 * 1024);
const rounds = arg('rounds', 10);
const port = arg('port', 29600);
const rank = Number(process.env.RANK ?? 0);
const master = process.env.MASTER_ADDR ?? '127.0.0.1';
// A hung round must not hang the benchmark: give up after this long.
setTimeout(() => {
  console.error(`incast rank ${rank}: gave up after 120 s`);
  process.exit(3);
}, 120_000).unref();

if (rank > senders) process.exit(0);

if (rank === 0) {
  const sockets = [];
  let received = 0;
  let round = 0;
  let start = 0;
  let roundDone = () => {};
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
    socket.on('data', (chunk) => {
      received += chunk.length;
      if (received >= senders * block) roundDone();
    });
    if (sockets.length === senders) void runRounds();
  });
  server.listen(port, master);
  async function runRounds() {
    start = performance.now();
    for (round = 0; round < rounds; round++) {
      received = 0;
      const done = new Promise((resolve) => (roundDone = resolve));
      for (const socket of sockets) socket.write('r');
      await done;
    }
    const seconds = (performance.now() - start) / 1000;
    console.log(JSON.stringify({ senders, block, rounds, seconds, goodputBps: (senders * block * rounds * 8) / seconds }));
    for (const socket of sockets) socket.end();
    server.close();
  }
} else {
  const payload = Buffer.alloc(block, rank);
  const connect = () => {
    const socket = net.connect({ host: master, port }, () => socket.setNoDelay(true));
    socket.on('error', () => setTimeout(connect, 50));
    socket.on('data', (request) => {
      for (let i = 0; i < request.length; i++) socket.write(payload);
    });
    socket.on('end', () => process.exit(0));
  };
  connect();
}
