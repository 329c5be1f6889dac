/**
 * One direction of the data plane over one TCP connection. Both ends know the exact sequence of
 * messages (the collective's schedule), so there are no headers: the receiver posts destination
 * views in order and incoming bytes are copied straight into them.
 *
 * The receiving end reads with Node's `onread` straight into the posted destination, or into one
 * preallocated staging buffer (no allocation per read: about twice the throughput of 'data'
 * events on loopback). When bytes
 * arrive before their destination is posted, the few already read are kept and the socket is
 * paused, so the rest waits in the kernel (TCP flow control) instead of piling up in memory.
 */
import fs from 'node:fs';
import type net from 'node:net';
import { UsageError } from '../core/errors.js';

/** How bytes move: libuv's event loop (reads in callbacks), or the rank's own polling loop (see Mesh.until). */
export type ProgressMode = 'events' | 'poll';
export const PROGRESS_MODES: readonly ProgressMode[] = ['poll', 'events'];

/** AIFABRIC_BENCH_PROGRESS: undefined when unset; a UsageError for anything but a known mode. */
export function parseProgressMode(text: string | undefined): ProgressMode | undefined {
  if (text === undefined || text === '') return undefined;
  if ((PROGRESS_MODES as readonly string[]).includes(text)) return text as ProgressMode;
  throw new UsageError(`AIFABRIC_BENCH_PROGRESS=${text}: expected one of ${PROGRESS_MODES.join(', ')}`);
}

interface QueuedSend {
  view: Uint8Array;
  written: number;
}

const wouldBlock = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK';
};

interface PostedReceive {
  view: Uint8Array;
  filled: number;
  onDone: () => void;
}

/** Staging buffer per receiving connection; 4 MiB measured best on loopback (bench/tcp-vs-iperf3). */
export const STAGING_BYTES = 4 * 1024 * 1024;
/** Below this, one large read into staging and a copy beats many small reads into place. */
const DIRECT_READ_MIN_BYTES = 256 * 1024;

export class DataSocket {
  private readonly posted: PostedReceive[] = [];
  private head = 0;
  private leftover: Uint8Array | undefined;
  private draining = false;
  private paused = false;
  private pumpScheduled = false;
  pendingWrites = 0;
  /** Date.now() of the last byte received or write completed, for the inactivity watchdog. */
  lastProgress = Date.now();
  socket: net.Socket | undefined;
  /** In poll mode, the socket's descriptor, read and written directly with non-blocking calls. */
  private fd = -1;
  private readonly sendQueue: QueuedSend[] = [];
  private sendHead = 0;

  constructor(
    private readonly onWriteError: (error: Error) => void,
    private readonly onFlushed: () => void,
    private readonly onEnd: () => void = () => undefined,
  ) {}

  /**
   * Switch to poll mode: libuv stops reading this socket (it never writes it again either) and
   * Mesh.until moves its bytes with non-blocking read(2)/write(2) on the descriptor, so a step's
   * bytes are taken the moment they arrive, without a trip through epoll and a callback. Bytes
   * libuv read before the switch (leftover) are delivered first. Returns false where the
   * descriptor is not available (then the socket stays in events mode).
   */
  startPolling(): boolean {
    const fd = (this.socket as unknown as { _handle?: { fd?: number } } | undefined)?._handle?.fd;
    if (!this.socket || typeof fd !== 'number' || fd < 0 || this.pendingWrites > 0) return false;
    this.socket.pause();
    this.paused = false;
    this.fd = fd;
    return true;
  }

  get polling(): boolean {
    return this.fd >= 0;
  }

  /**
   * One non-blocking pass in poll mode: write what the kernel takes of the queued sends, then read
   * what has arrived into the posted receives (never more than the head receive still wants, so
   * stream order needs no staging). Completion callbacks run from here. Returns whether any byte
   * moved or any receive completed.
   */
  progress(): boolean {
    let moved = this.writeSome();
    if (this.leftover && this.waiting) {
      const rest = this.leftover;
      this.leftover = undefined;
      this.onRead(rest, true);
      moved = true;
    }
    this.draining = true;
    try {
      while (this.waiting) {
        const request = this.posted[this.head]!;
        if (request.filled < request.view.length) {
          let bytes: number;
          try {
            bytes = fs.readSync(
              this.fd,
              request.view,
              request.filled,
              request.view.length - request.filled,
              null,
            );
          } catch (error) {
            if (wouldBlock(error)) break;
            this.fd = -1;
            this.onWriteError(error as Error);
            return moved;
          }
          if (bytes === 0) {
            this.fd = -1;
            this.onEnd();
            return moved;
          }
          request.filled += bytes;
          moved = true;
          this.lastProgress = Date.now();
          if (request.filled < request.view.length) continue;
        }
        this.advance();
        moved = true;
        request.onDone();
      }
    } finally {
      this.draining = false;
    }
    return moved;
  }

  private writeSome(): boolean {
    let moved = false;
    while (this.sendHead < this.sendQueue.length) {
      const item = this.sendQueue[this.sendHead]!;
      let bytes: number;
      try {
        bytes = fs.writeSync(this.fd, item.view, item.written, item.view.length - item.written);
      } catch (error) {
        if (wouldBlock(error)) return moved;
        this.fd = -1;
        this.onWriteError(error as Error);
        return moved;
      }
      item.written += bytes;
      moved = moved || bytes > 0;
      if (item.written < item.view.length) return moved;
      this.sendHead++;
      if (this.sendHead === this.sendQueue.length) {
        this.sendQueue.length = 0;
        this.sendHead = 0;
      } else if (this.sendHead > 1024) {
        this.sendQueue.splice(0, this.sendHead);
        this.sendHead = 0;
      }
      this.lastProgress = Date.now();
      if (--this.pendingWrites === 0) this.onFlushed();
    }
    return moved;
  }

  /**
   * The `onread` option for a receiving connection. Node asks for the buffer of the next read
   * right after the callback of the previous one: while a large receive is at the head we hand
   * out the unfilled rest of its destination, so the kernel copies straight into place (no second
   * copy); otherwise the staging buffer. Between two reads only reads consume bytes (leftover
   * bytes imply the staging buffer), so the head is still the same receive when the read lands.
   */
  readOptions(): { buffer: () => Uint8Array; callback: (bytes: number, buffer: Uint8Array) => boolean } {
    const staging = new Uint8Array(STAGING_BYTES);
    return {
      buffer: () => {
        const request = this.leftover ? undefined : this.posted[this.head];
        if (request && request.view.length - request.filled >= DIRECT_READ_MIN_BYTES)
          return request.view.subarray(request.filled);
        return staging;
      },
      callback: (bytes, buffer) => this.onRead(buffer.subarray(0, bytes)),
    };
  }

  get waiting(): boolean {
    return this.head < this.posted.length;
  }

  /**
   * Deliver the next `view.length` bytes of the stream into `view`, then call onDone. Receives
   * complete strictly in the order they were posted, empty ones included, and never inside this
   * call: bytes already read (leftover) are delivered from a microtask. A caller that posts
   * several receives in one synchronous loop therefore has them all queued before the first
   * completes. (Completing synchronously let a completion post the next step's receive ahead of
   * receives still to be posted in that loop, so bytes landed in the wrong buffer: the data
   * corruption of issue 9.)
   */
  recv(view: Uint8Array, onDone: () => void): void {
    this.posted.push({ view, filled: 0, onDone });
    // In poll mode Mesh.until delivers it; never from here, for the same reason.
    if (!this.draining && !this.polling) this.schedulePump();
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Deliver what is already here (leftover bytes, empty receives), then resume reading. */
  private pump(): void {
    if (this.draining) return;
    if (this.leftover) {
      const rest = this.leftover;
      this.leftover = undefined;
      this.onRead(rest, true);
    } else {
      this.draining = true;
      try {
        this.completeEmpty();
      } finally {
        this.draining = false;
      }
    }
    if (this.paused && !this.leftover && this.socket) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** Complete posted receives at the head that need no bytes. */
  private completeEmpty(): void {
    while (this.waiting) {
      const request = this.posted[this.head]!;
      if (request.filled < request.view.length) return;
      this.advance();
      request.onDone();
    }
  }

  /**
   * Drop the completed head receive. Finished entries are let go at once whenever the queue
   * empties (every step of a ring, at the latest): kept until a 1024-entry compaction they and
   * the views they hold outlived young-generation collections, filled the old generation, and
   * each rank stopped for a 10-13 ms full collection every few hundred iterations.
   */
  private advance(): void {
    this.head++;
    if (this.head === this.posted.length) {
      this.posted.length = 0;
      this.head = 0;
    } else if (this.head > 1024) {
      this.posted.splice(0, this.head);
      this.head = 0;
    }
  }

  send(view: Uint8Array): void {
    if (view.length === 0 || !this.socket) return;
    this.pendingWrites++;
    if (this.polling) {
      // Queued in order and written at once as far as the kernel takes it; the rest by progress().
      this.sendQueue.push({ view, written: 0 });
      if (this.sendHead === this.sendQueue.length - 1) this.writeSome();
      return;
    }
    // The view is written in place (no copy); the caller keeps it unchanged until flushed.
    this.socket.write(view, (error) => {
      this.pendingWrites--;
      this.lastProgress = Date.now();
      if (error) this.onWriteError(error);
      else if (this.pendingWrites === 0) this.onFlushed();
    });
  }

  /**
   * Copy bytes into posted views in stream order. A completion callback may post the next
   * receive; the draining flag keeps that from consuming anything out of order. Returns false
   * (pause the socket) when bytes are left over with nowhere to go.
   */
  private onRead(chunk: Uint8Array, owned = false): boolean {
    this.lastProgress = Date.now();
    this.draining = true;
    let offset = 0;
    try {
      this.completeEmpty();
      while (offset < chunk.length && this.waiting) {
        const request = this.posted[this.head]!;
        const n = Math.min(request.view.length - request.filled, chunk.length - offset);
        const inPlace =
          chunk.buffer === request.view.buffer &&
          chunk.byteOffset + offset === request.view.byteOffset + request.filled;
        if (!inPlace) request.view.set(chunk.subarray(offset, offset + n), request.filled);
        request.filled += n;
        offset += n;
        if (request.filled === request.view.length) {
          this.advance();
          request.onDone();
          this.completeEmpty();
        }
      }
    } finally {
      this.draining = false;
    }
    if (offset < chunk.length) {
      // The staging buffer is reused by the next read, so keep a copy of what is left.
      this.leftover = owned ? chunk.subarray(offset) : chunk.slice(offset);
      this.paused = true;
      return false;
    }
    return true;
  }
}
