#!/usr/bin/env node
// The latency floor under bench tcp: a 4-byte ping-pong between two Node processes over loopback
// TCP (TCP_NODELAY), in two forms: (1) the event loop (`net` 'data' events, as bench tcp reads),
// (2) a spin of synchronous non-blocking reads and writes on the socket's descriptor
// (fs.readSync/fs.writeSync, retrying on EAGAIN), which never sleeps in epoll. Prints the mean
// round trip of each. Compare with an 8-byte `MPI_Allreduce` (bench/mpi-allreduce.c, -b 8 -e 8).
//   node bench/node-pingpong.mjs [--rounds 5000]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { arg } from './script-args.mjs';

const rounds = Number(arg('rounds', '5000'));
const [role, mode] = [process.argv[2], process.argv[3]];
const buf = Buffer.alloc(4);

function spinRead(fd) {
  for (;;) {
    try {
      const n = fs.readSync(fd, buf, 0, 4, null);
      if (n === 0) throw new Error('peer closed');
      return;
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
  }
}

if (role === 'echo') {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    if (mode === 'spin') {
      socket.pause();
      // eslint-disable-next-line no-underscore-dangle -- the descriptor libuv holds
      const fd = socket._handle.fd;
      setImmediate(() => {
        for (let i = 0; i < rounds; i++) {
          spinRead(fd);
          fs.writeSync(fd, buf);
        }
      });
    } else socket.on('data', (data) => socket.write(data));
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  for (const form of ['events', 'spin']) {
    const child = fork(process.argv[1], ['echo', form, '--rounds', String(rounds)]);
    const port = await new Promise((resolve) => child.once('message', resolve));
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = process.hrtime.bigint();
    if (form === 'spin') {
      socket.pause();
      // eslint-disable-next-line no-underscore-dangle -- the descriptor libuv holds
      const fd = socket._handle.fd;
      for (let i = 0; i < rounds; i++) {
        fs.writeSync(fd, buf);
        spinRead(fd);
      }
    } else {
      await new Promise((resolve) => {
        let n = 0;
        socket.on('data', () => (++n === rounds ? resolve() : socket.write(buf)));
        socket.write(buf);
      });
    }
    const us = Number(process.hrtime.bigint() - started) / 1e3 / rounds;
    console.log(`${form === 'spin' ? 'synchronous spin on the descriptor' : 'event loop (net data events)'}: ${us.toFixed(1)} us per round trip`);
    socket.destroy();
    child.kill();
  }
}
