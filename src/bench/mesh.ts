/**
 * The data plane: K TCP connections (TCP_NODELAY) per direction to each peer a collective needs.
 * The receiving rank opens them (so it can read with `onread` into its own staging buffer) and
 * starts each with an 8-byte hello (its rank, the connection's index), so both ends agree on
 * which socket is which. A reset, a close, or a peer silent for --timeout while we wait on it
 * trips the fault latch, naming that peer.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Completion } from './coll-context.js';
import { DataSocket, type ProgressMode } from './data-socket.js';
import { describeRank, type FaultLatch } from './fault.js';
import type { RankInfo } from './types.js';

const HELLO_BYTES = 8;
/**
 * Poll mode: an empty pass sleeps (a futex wait) at once, SLEEP_MIN_MS first, doubling with each
 * further empty pass up to SLEEP_MAX_MS, and up to SLEEP_IDLE_MAX_MS once nothing has moved for
 * IDLE_AFTER_MS (a slow link or a slow peer): ranks that outnumber the cores hand them to the peers
 * they wait for instead of spinning them away, as Open MPI's progress loop does with sched_yield.
 * The sleeps are short only because the rank's timer slack is cut to TIMER_SLACK_NS (below); with
 * the kernel's default 50 us slack every sleep lasted at least 50 us. On the 2-core VM, 4 ranks of
 * a 1 MiB all_reduce then kept 1.84 CPUs busy instead of 1.66 and took 2.9-4.8 ms instead of
 * 6.7-11.1 ms, in place and out of place alike (session 7, docs/PERFORMANCE.md run 9).
 */
const SLEEP_MIN_MS = 0.005;
const SLEEP_MAX_MS = 0.05;
const IDLE_AFTER_MS = 2;
const SLEEP_IDLE_MAX_MS = 1;
/**
 * The rank's timer slack, in ns: how late the kernel may end a sleep to batch wake-ups
 * (prctl(2) PR_SET_TIMERSLACK; proc(5) /proc/pid/timerslack_ns, writable by the process itself).
 */
const TIMER_SLACK_NS = 1000;
/** Poll mode hands the event loop a turn this often, so timers, signals and the control channel run. */
const EVENT_LOOP_TURN_MS = 2;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Cut this process's timer slack to TIMER_SLACK_NS; where the kernel refuses, the sleeps are just longer. */
function shortenTimerSlack(): void {
  try {
    writeFileSync('/proc/self/timerslack_ns', String(TIMER_SLACK_NS));
  } catch {
    // Not Linux, or no /proc: the default slack only lengthens the sleeps.
  }
}

/**
 * Connections accepted by a rank's data listener. Peers may connect as soon as the rendezvous
 * tells them our port, before this rank has set up its mesh; those wait here (paused) instead of
 * being missed.
 */
export class AcceptQueue {
  private readonly waiting: net.Socket[] = [];
  private handler: ((socket: net.Socket) => void) | undefined;

  constructor(server: net.Server) {
    server.on('connection', (socket) => {
      socket.on('error', () => undefined);
      if (this.handler) this.handler(socket);
      else {
        socket.pause();
        this.waiting.push(socket);
      }
    });
  }

  handle(handler: (socket: net.Socket) => void): void {
    this.handler = handler;
    for (const socket of this.waiting.splice(0)) {
      handler(socket);
      socket.resume();
    }
  }

  destroyWaiting(): void {
    for (const socket of this.waiting.splice(0)) socket.destroy();
  }
}

export class Mesh {
  private readonly sendLinks = new Map<number, DataSocket[]>();
  private readonly recvLinks = new Map<number, DataSocket[]>();
  private closing = false;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly flushWaiters: (() => void)[] = [];

  constructor(
    readonly rank: number,
    readonly peers: RankInfo[],
    readonly socketsPerPeer: number,
    private readonly latch: FaultLatch,
    private readonly timeoutS: number,
    private readonly mode: ProgressMode = 'poll',
  ) {}

  private polled: DataSocket[] = [];

  private describe(rank: number): string {
    const peer = this.peers[rank];
    return describeRank(rank, peer?.host, peer?.pid);
  }

  private find(links: Map<number, DataSocket[]>, peer: number, index: number, what: string): DataSocket {
    const socket = links.get(peer)?.[index % this.socketsPerPeer];
    if (!socket)
      throw new Error(`internal: no data connection to ${what} rank ${peer} from rank ${this.rank}`);
    return socket;
  }

  /** Connection `index mod K` carrying our bytes to `peer`. */
  sendLink(peer: number, index: number): DataSocket {
    return this.find(this.sendLinks, peer, index, 'send to');
  }

  /** Connection `index mod K` carrying `peer`'s bytes to us. */
  recvLink(peer: number, index: number): DataSocket {
    return this.find(this.recvLinks, peer, index, 'receive from');
  }

  private newLink(peer: number): DataSocket {
    return new DataSocket(
      (error) => {
        if (!this.closing)
          this.latch.trip(
            `connection to ${this.describe(peer)} failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          );
      },
      () => this.checkFlushed(),
      () => {
        if (!this.closing)
          this.latch.trip(`${this.describe(peer)} closed its data connection (exited or was killed)`);
      },
    );
  }

  private watch(peer: number, socket: net.Socket): void {
    socket.setNoDelay(true);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!this.closing)
        this.latch.trip(`connection to ${this.describe(peer)} failed: ${error.code ?? error.message}`);
    });
    socket.on('close', () => {
      if (!this.closing)
        this.latch.trip(`${this.describe(peer)} closed its data connection (exited or was killed)`);
    });
  }

  private store(links: Map<number, DataSocket[]>, peer: number, index: number, link: DataSocket): void {
    const list = links.get(peer) ?? [];
    list[index] = link;
    links.set(peer, list);
  }

  /**
   * Open K connections to each rank in `recvFrom` and accept K from each rank in `sendTo`;
   * resolves when all are up.
   */
  async connect(
    accepted: AcceptQueue,
    sendTo: number[],
    recvFrom: number[],
    localAddress: string | undefined,
  ): Promise<void> {
    const expected = (sendTo.length + recvFrom.length) * this.socketsPerPeer;
    let ready = 0;
    let markReady: () => void = () => undefined;
    const allReady = new Promise<void>((resolve) => {
      markReady = () => {
        if (++ready === expected) resolve();
      };
      if (expected === 0) resolve();
    });
    accepted.handle((socket) => {
      let header = Buffer.alloc(0);
      const onHeader = (chunk: Buffer): void => {
        header = Buffer.concat([header, chunk]);
        if (header.length < HELLO_BYTES) return;
        socket.off('data', onHeader);
        socket.pause();
        const peer = header.readUInt32LE(0);
        const index = header.readUInt32LE(4);
        if (!sendTo.includes(peer) || index >= this.socketsPerPeer || this.sendLinks.get(peer)?.[index]) {
          socket.destroy();
          return;
        }
        const link = this.newLink(peer);
        link.socket = socket;
        this.watch(peer, socket);
        this.store(this.sendLinks, peer, index, link);
        markReady();
      };
      socket.on('data', onHeader);
    });
    for (const peer of recvFrom) {
      const info = this.peers[peer]!;
      for (let index = 0; index < this.socketsPerPeer; index++) {
        const link = this.newLink(peer);
        const socket = net.connect({
          host: info.addr,
          port: info.port,
          onread: link.readOptions(),
          ...(localAddress ? { localAddress } : {}),
        });
        link.socket = socket;
        this.watch(peer, socket);
        this.store(this.recvLinks, peer, index, link);
        const hello = Buffer.alloc(HELLO_BYTES);
        hello.writeUInt32LE(this.rank, 0);
        hello.writeUInt32LE(index, 4);
        socket.write(hello);
        socket.once('connect', () => markReady());
      }
    }
    const names = [...new Set([...sendTo, ...recvFrom])].map((p) => this.describe(p)).join(', ');
    const timer = setTimeout(
      () =>
        this.latch.trip(
          `rank ${this.rank}: data connections with ${names} not established within ${this.timeoutS} s (--timeout)`,
        ),
      this.timeoutS * 1000,
    );
    try {
      await this.latch.guard(allReady);
    } finally {
      clearTimeout(timer);
    }
    if (this.mode === 'poll') {
      const links = [...this.allLinks()].map(([, link]) => link);
      // All or none: a socket left to libuv would be serviced only between polling passes.
      if (links.every((link) => link.startPolling())) {
        this.polled = links;
        shortenTimerSlack();
      } else
        for (const link of links)
          if (link.polling) throw new Error('internal: poll mode on some data connections only');
    }
    this.startWatchdog();
  }

  /**
   * Wait until `work` is done (or a fault trips). In poll mode this is the rank's progress engine:
   * passes of non-blocking writes and reads over every data connection, completion callbacks run
   * from them, a short sleep once nothing has moved for a while, and a turn of the event loop
   * every few milliseconds. In events mode it awaits libuv's callbacks.
   */
  async until(work: Pick<Completion, 'isDone' | 'done'>): Promise<void> {
    if (this.polled.length === 0) {
      await this.latch.guard(work.done);
      return;
    }
    const links = this.polled;
    let turnAt = performance.now() + EVENT_LOOP_TURN_MS;
    let movedAt = performance.now();
    let sleepMs = SLEEP_MIN_MS;
    // Each EAGAIN from a non-blocking read is thrown as an Error; without stacks they cost little.
    const stackLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      while (!work.isDone()) {
        this.latch.throwIfTripped();
        let moved = false;
        for (const link of links) if (link.progress()) moved = true;
        if (work.isDone()) break;
        const now = performance.now();
        if (moved) {
          movedAt = now;
          sleepMs = SLEEP_MIN_MS;
        } else {
          Atomics.wait(sleepCell, 0, 0, sleepMs);
          sleepMs = Math.min(now - movedAt > IDLE_AFTER_MS ? SLEEP_IDLE_MAX_MS : SLEEP_MAX_MS, sleepMs * 2);
        }
        if (now > turnAt) {
          Error.stackTraceLimit = stackLimit;
          await nextTurn();
          Error.stackTraceLimit = 0;
          turnAt = performance.now() + EVENT_LOOP_TURN_MS;
        }
      }
    } finally {
      Error.stackTraceLimit = stackLimit;
    }
    this.latch.throwIfTripped();
  }

  /** Wait until every send has been handed to the kernel, so its buffer may be reused. */
  drained(): Promise<void> {
    if (this.polled.length === 0) return this.latch.guard(this.flushed());
    return this.until({ isDone: () => this.pendingWrites() === 0, done: Promise.resolve() });
  }

  /** In poll mode, one pass over the connections (for work done between waits, such as a long copy). */
  poke(): void {
    for (const link of this.polled) link.progress();
  }

  private *allLinks(): Generator<[number, DataSocket]> {
    for (const links of [this.sendLinks, this.recvLinks]) {
      for (const [peer, list] of links) for (const link of list) if (link) yield [peer, link];
    }
  }

  /** While we wait on a peer and it sends nothing for --timeout, give up naming that peer. */
  private startWatchdog(): void {
    this.watchdog = setInterval(
      () => {
        const now = Date.now();
        for (const [peer, link] of this.allLinks()) {
          const waiting = link.waiting || link.pendingWrites > 0;
          if (!waiting) link.lastProgress = now;
          else if (now - link.lastProgress > this.timeoutS * 1000) {
            this.latch.trip(
              `rank ${this.rank}: no progress from ${this.describe(peer)} for ${this.timeoutS} s (--timeout)`,
            );
            return;
          }
        }
      },
      Math.min(1000, this.timeoutS * 250),
    );
    this.watchdog.unref();
  }

  private pendingWrites(): number {
    let total = 0;
    for (const [, link] of this.allLinks()) total += link.pendingWrites;
    return total;
  }

  private checkFlushed(): void {
    if (this.pendingWrites() > 0) return;
    for (const waiter of this.flushWaiters.splice(0)) waiter();
  }

  /** Resolves once every send has been handed to the kernel, so its buffer may be reused. */
  flushed(): Promise<void> {
    if (this.pendingWrites() === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /** Await `work` unless a fault trips first. */
  guard<T>(work: Promise<T>): Promise<T> {
    return this.latch.guard(work);
  }

  /** From now on peers closing is expected (the run is over), not a fault. */
  quiesce(): void {
    this.closing = true;
  }

  close(): void {
    this.closing = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const [, link] of this.allLinks()) link.socket?.destroy();
  }
}
