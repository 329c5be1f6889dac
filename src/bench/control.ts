/**
 * The rendezvous and control channel. Rank 0 listens at MASTER_ADDR:MASTER_PORT; every other rank
 * connects, says who it is and where its data listener is, and gets the table of all ranks back.
 * The connections stay open for the whole run as a star: small all-rank sums (barriers, timings,
 * #wrong counts) go through rank 0, and a connection that drops tells rank 0 which rank died so
 * it can name it to all the others. Messages are JSON lines; the data plane never uses this path.
 */
import net from 'node:net';
import { describeRank, type FaultLatch } from './fault.js';
import type { RankInfo } from './types.js';

export type ControlMessage =
  | { t: 'hello'; info: RankInfo; size: number }
  | { t: 'peers'; peers: RankInfo[] }
  | { t: 'sum'; v: number[] }
  | { t: 'sumr'; v: number[] }
  | { t: 'abort'; message: string }
  | { t: 'bye' };

export interface ControlOptions {
  rank: number;
  size: number;
  masterAddr: string;
  masterPort: number;
  timeoutS: number;
  latch: FaultLatch;
  /** Starts this rank's data listener once the address facing the rendezvous is known. */
  startDataListener: (localAddress: string) => Promise<{ addr: string; port: number }>;
  host: string;
  pid: number;
  cores: number;
}

export function send(socket: net.Socket, message: ControlMessage): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

export function onLines(socket: net.Socket, handle: (message: ControlMessage) => void): void {
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message: ControlMessage;
      try {
        message = JSON.parse(line) as ControlMessage;
      } catch {
        // Not one of ours (a port scanner, a stray client): drop it rather than crash rank 0.
        socket.destroy();
        return;
      }
      handle(message);
    }
  });
}

export abstract class ControlChannel {
  peers: RankInfo[] = [];
  protected done = false;
  protected readonly sumWaiters: ((values: number[]) => void)[] = [];

  constructor(protected readonly options: ControlOptions) {}

  /** Element-wise sum over all ranks; with no values it is a barrier. */
  abstract allSum(values: number[]): Promise<number[]>;
  /** Tell every rank why this one stops (best effort), then stop. */
  abstract abort(message: string): void;
  /** Orderly end: peers may now close without it counting as a failure. */
  abstract close(): Promise<void>;

  protected describe(rank: number): string {
    const peer = this.peers[rank];
    return describeRank(rank, peer?.host, peer?.pid);
  }

  protected timeoutError(what: string): string {
    return `${what} within ${this.options.timeoutS} s (--timeout)`;
  }
}
