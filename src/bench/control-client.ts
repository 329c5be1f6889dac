/**
 * The side of the control channel of ranks 1..n-1: connect to rank 0 (retrying while it starts,
 * up to --timeout), announce this rank and its data address, then follow rank 0's answers.
 */
import net from 'node:net';
import { EnvironmentError } from '../core/errors.js';
import { ControlChannel, onLines, send, type ControlOptions } from './control.js';

/** Ranks 1..n-1: connect (retrying while rank 0 starts), announce, then follow rank 0. */
export class ControlClient extends ControlChannel {
  private socket: net.Socket | undefined;

  static async open(options: ControlOptions): Promise<ControlClient> {
    const channel = new ControlClient(options);
    await channel.rendezvous();
    return channel;
  }

  private async connectWithRetry(deadline: number): Promise<net.Socket> {
    const { masterAddr, masterPort, latch } = this.options;
    let lastError = 'no answer';
    while (Date.now() < deadline) {
      latch.throwIfTripped();
      try {
        return await new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ host: masterAddr, port: masterPort });
          const timer = setTimeout(
            () => socket.destroy(new Error('connect timed out')),
            Math.max(1, deadline - Date.now()),
          );
          socket.once('connect', () => {
            clearTimeout(timer);
            socket.removeAllListeners('error');
            resolve(socket);
          });
          socket.once('error', (error: NodeJS.ErrnoException) => {
            clearTimeout(timer);
            reject(error);
          });
        });
      } catch (error) {
        lastError = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new EnvironmentError(
      `rank ${this.options.rank} (host ${this.options.host}): ${this.timeoutError(`rendezvous with rank 0 at ${masterAddr}:${masterPort} did not complete (${lastError})`)}`,
    );
  }

  private async rendezvous(): Promise<void> {
    const { rank, size, latch, timeoutS } = this.options;
    const deadline = Date.now() + timeoutS * 1000;
    const socket = await this.connectWithRetry(deadline);
    this.socket = socket;
    socket.setNoDelay(true);
    const gotPeers = new Promise<void>((resolve) => {
      onLines(socket, (message) => {
        if (message.t === 'peers') {
          this.peers = message.peers;
          resolve();
        } else if (message.t === 'sumr') this.sumWaiters.shift()?.(message.v);
        else if (message.t === 'abort') latch.trip(message.message);
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!this.done)
        latch.trip(
          `${this.describe(0)} exited or closed the control connection (rendezvous ${this.options.masterAddr}:${this.options.masterPort})`,
        );
    });
    latch.onTrip((error) => {
      if (!this.done) send(socket, { t: 'abort', message: error.message });
    });
    const self = await this.options.startDataListener(socket.localAddress ?? '127.0.0.1');
    send(socket, {
      t: 'hello',
      size,
      info: { rank, host: this.options.host, pid: this.options.pid, cores: this.options.cores, ...self },
    });
    const timer = setTimeout(
      () =>
        latch.trip(
          this.timeoutError(
            `rank ${rank} (host ${this.options.host}): rendezvous did not complete (rank 0 is still waiting for other ranks)`,
          ),
        ),
      Math.max(1, deadline - Date.now()),
    );
    try {
      await latch.guard(gotPeers);
    } finally {
      clearTimeout(timer);
    }
  }

  async allSum(values: number[]): Promise<number[]> {
    const result = new Promise<number[]>((resolve) => this.sumWaiters.push(resolve));
    send(this.socket!, { t: 'sum', v: values });
    // Rank 0 runs the same watchdog and names the late rank; this one only covers a silent rank 0.
    const timer = setTimeout(
      () => this.options.latch.trip(this.timeoutError(`${this.describe(0)} did not answer`)),
      (this.options.timeoutS + 2) * 1000,
    );
    try {
      return await this.options.latch.guard(result);
    } finally {
      clearTimeout(timer);
    }
  }

  abort(message: string): void {
    this.options.latch.trip(message);
  }

  async close(): Promise<void> {
    this.done = true;
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    send(socket, { t: 'bye' });
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.end();
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 2000).unref();
    });
  }
}
