/**
 * Rank 0's side of the control channel: it serves the rendezvous at MASTER_ADDR:MASTER_PORT,
 * sums what the ranks send and answers all of them, relays the first abort to everyone, and
 * notices a rank whose connection drops.
 */
import net from 'node:net';
import { EnvironmentError } from '../core/errors.js';
import { describeRank } from './fault.js';
import { ControlChannel, onLines, send, type ControlMessage, type ControlOptions } from './control.js';
import type { RankInfo } from './types.js';

/** Rank 0: serves the rendezvous and relays sums and aborts. */
export class ControlServer extends ControlChannel {
  private server: net.Server | undefined;
  private readonly sockets = new Map<number, net.Socket>();
  private readonly queued = new Map<number, number[][]>();
  private localQueue: { values: number[]; resolve: (v: number[]) => void }[] = [];
  private readonly closed = new Set<number>();

  static async open(options: ControlOptions): Promise<ControlServer> {
    const channel = new ControlServer(options);
    await channel.rendezvous();
    return channel;
  }

  private async rendezvous(): Promise<void> {
    const { masterAddr, masterPort, size, latch, timeoutS } = this.options;
    const hellos = new Map<number, RankInfo>();
    const server = net.createServer();
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        const reason =
          error.code === 'EADDRINUSE'
            ? 'address already in use'
            : error.code === 'EADDRNOTAVAIL'
              ? 'no such local address'
              : error.message;
        reject(
          new EnvironmentError(
            `rank 0 (host ${this.options.host}) cannot listen for the rendezvous on ${masterAddr}:${masterPort}: ${reason}`,
          ),
        );
      });
      server.listen({ host: masterAddr, port: masterPort, exclusive: true }, () => resolve());
    });
    const self = await this.options.startDataListener(masterAddr);
    hellos.set(0, {
      rank: 0,
      host: this.options.host,
      pid: this.options.pid,
      cores: this.options.cores,
      ...self,
    });

    const everyone = new Promise<void>((resolve) => {
      if (hellos.size === size) resolve();
      server.on('connection', (socket) => {
        socket.setNoDelay(true);
        let rank = -1;
        socket.on('error', () => undefined);
        onLines(socket, (message) => {
          if (message.t === 'hello') {
            rank = message.info.rank;
            if (message.size !== size || rank < 1 || rank >= size || hellos.has(rank)) {
              const why =
                message.size !== size
                  ? `says the job has ${message.size} ranks, rank 0 says ${size}`
                  : `is a duplicate or out of range`;
              latch.trip(`rendezvous: rank ${rank} from host ${message.info.host} ${why}`);
              return;
            }
            this.sockets.set(rank, socket);
            hellos.set(rank, message.info);
            if (hellos.size === size) resolve();
          } else this.handle(rank, message);
        });
        socket.on('close', () => {
          if (rank < 0 || this.done || this.closed.has(rank)) return;
          this.closed.add(rank);
          const info = hellos.get(rank);
          latch.trip(`${describeRank(rank, info?.host, info?.pid)} exited or lost its connection to rank 0`);
        });
      });
    });
    latch.onTrip((error) => this.broadcastAbort(error.message));
    const timer = setTimeout(() => {
      const missing = [...Array(size).keys()].filter((r) => !hellos.has(r));
      latch.trip(
        this.timeoutError(
          `rendezvous at ${masterAddr}:${masterPort}: rank(s) ${missing.join(', ')} of ${size} did not join`,
        ),
      );
    }, timeoutS * 1000);
    try {
      await latch.guard(everyone);
    } finally {
      clearTimeout(timer);
    }
    this.peers = [...Array(size).keys()].map((r) => hellos.get(r)!);
    for (const socket of this.sockets.values()) send(socket, { t: 'peers', peers: this.peers });
  }

  private handle(rank: number, message: ControlMessage): void {
    if (message.t === 'sum') {
      const queue = this.queued.get(rank) ?? [];
      queue.push(message.v);
      this.queued.set(rank, queue);
      this.trySum();
    } else if (message.t === 'abort') {
      this.options.latch.trip(message.message);
    } else if (message.t === 'bye') {
      this.closed.add(rank);
    }
  }

  private trySum(): void {
    while (this.localQueue.length > 0) {
      for (let r = 1; r < this.options.size; r++) if ((this.queued.get(r)?.length ?? 0) === 0) return;
      const local = this.localQueue.shift()!;
      const total = [...local.values];
      for (let r = 1; r < this.options.size; r++) {
        const values = this.queued.get(r)!.shift()!;
        for (let i = 0; i < total.length; i++) total[i] = total[i]! + (values[i] ?? 0);
      }
      for (const socket of this.sockets.values()) send(socket, { t: 'sumr', v: total });
      local.resolve(total);
    }
  }

  async allSum(values: number[]): Promise<number[]> {
    const result = new Promise<number[]>((resolve) => this.localQueue.push({ values, resolve }));
    this.trySum();
    const timer = setTimeout(() => {
      const late = [...Array(this.options.size).keys()].filter(
        (r) => r > 0 && (this.queued.get(r)?.length ?? 0) === 0,
      );
      this.options.latch.trip(
        this.timeoutError(`${late.map((r) => this.describe(r)).join(', ')} did not reach the same step`),
      );
    }, this.options.timeoutS * 1000);
    try {
      return await this.options.latch.guard(result);
    } finally {
      clearTimeout(timer);
    }
  }

  private broadcastAbort(message: string): void {
    for (const socket of this.sockets.values()) send(socket, { t: 'abort', message });
  }

  abort(message: string): void {
    this.options.latch.trip(message);
  }

  async close(): Promise<void> {
    this.done = true;
    // Let each rank close its end first so none of them sees rank 0 vanish mid-message.
    const closing = [...this.sockets.values()].map(
      (socket) =>
        new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve()))),
    );
    const grace = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
    await Promise.race([Promise.all(closing), grace]);
    for (const socket of this.sockets.values()) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
