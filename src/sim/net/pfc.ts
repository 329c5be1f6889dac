/**
 * Priority flow control (IEEE 802.1Qbb) on the packet network's links. The decision to pause is
 * the switch buffers' (buffers.ts: XOFF and XON thresholds and headroom per ingress queue); here
 * are the pause and resume frames, which take real time to reach the upstream port, each link's
 * pause state and its accounting (frames received, paused time, the log of finished pauses),
 * pause storms from a NIC, the PFC watchdog, and the record of deadlocks (cycles of paused
 * queues, found by pfc-deadlock.ts). The network core calls in on a pause decision and on each
 * EV_PFC event, and reads `paused` and `stormed` on its hot paths.
 */
import { EV_PFC } from '../event-kinds.js';
import type { Topology } from '../topo/types.js';
import { CLS_LOSSLESS } from '../transport/connection.js';
import type { SwitchBuffers } from './buffers.js';
import { unionLength } from './intervals.js';
import type { PacketPool } from './packet-pool.js';
import { findDeadlockCycles } from './pfc-deadlock.js';
import type { PortQueues } from './port-queues.js';
import { MIN_FRAME_WIRE_BYTES } from './wire.js';

/** EV_PFC payloads: link x PFC_OPS + one of these. */
const PFC_RESUME = 0;
const PFC_PAUSE = 1;
const PFC_WATCHDOG_CHECK = 2;
const PFC_WATCHDOG_RESTORE = 3;
const PFC_OPS = 4;

/** A cycle of paused queues found by the deadlock detector (links in wait order). */
export interface DeadlockRecord {
  links: number[];
  /** When the last queue of the cycle was paused (the cycle closed). */
  formedPs: number;
  detectedPs: number;
  /** When a PFC watchdog flushed a queue of the cycle; -1 if it still stood when the run stopped. */
  brokenPs: number;
  /** Connections with packets stuck in the cycle's queues when it was detected. */
  connections: number[];
  /** Lossless bytes stuck in the cycle's queues when it was detected. */
  stuckBytes: number;
}

export interface WatchdogRecord {
  link: number;
  atPs: number;
  /** Packets flushed from the queue when it was declared stormed. */
  flushed: number;
}

export interface PauseStormRecord {
  host: number;
  /** The switch port towards the storming NIC. */
  link: number;
  startPs: number;
  endPs: number;
}

/** What the PFC needs of the network it runs in. */
export interface PfcNetwork {
  /** Current simulated time in picoseconds. */
  readonly now: number;
  schedule(timePs: number, type: number, payload: number): void;
  /** Something may be sent on `link` again (it resumed). */
  kick(link: number): void;
  /** Packets dropped, every cause: the watchdog's flushes count here too. */
  drops: number;
}

/** The network and its tables (the same arrays, shared: the PFC only reads them, but `dropsByLink`). */
export interface PfcOptions {
  network: PfcNetwork;
  topology: Topology;
  buffers: SwitchBuffers;
  queues: PortQueues;
  pool: PacketPool;
  linkFrom: Int32Array;
  linkTo: Int32Array;
  psPerByte: Float64Array;
  delayPs: Float64Array;
  /** End of the transmission in progress per link: a PFC frame waits for it on the reverse link. */
  busyUntil: Float64Array;
  isHost: Uint8Array;
  hostUplink: Int32Array;
  dropsByLink: Int32Array;
}

export class PriorityFlowControl {
  /** Per link: 1 while the port may not send lossless packets. */
  readonly paused: Uint8Array;
  private readonly pauseStart: Float64Array;
  private readonly pausedTotalPs: Float64Array;
  /** Finished pauses per link as flat [start, end, start, end, ...] in ps (only links ever paused). */
  private readonly pauseLog: (number[] | undefined)[];
  /** Pause frames received per link (at its sending end). */
  readonly pauseFrames: Int32Array;
  pauseFramesSent = 0;
  /** PFC watchdog: 1 while a queue is stormed (its lossless packets dropped); drops it made. */
  readonly stormed: Uint8Array;
  watchdogDrops = 0;
  readonly watchdogEvents: WatchdogRecord[] = [];
  readonly deadlocks: DeadlockRecord[] = [];
  /** 1 while a storming NIC holds the switch port towards it paused. */
  private readonly stormHeld: Uint8Array;
  readonly pauseStorms: PauseStormRecord[] = [];
  private readonly net: PfcNetwork;
  private readonly topology: Topology;
  private readonly buffers: SwitchBuffers;
  private readonly queues: PortQueues;
  private readonly pool: PacketPool;
  private readonly linkFrom: Int32Array;
  private readonly linkTo: Int32Array;
  private readonly psPerByte: Float64Array;
  private readonly delayPs: Float64Array;
  private readonly busyUntil: Float64Array;
  private readonly isHost: Uint8Array;
  private readonly hostUplink: Int32Array;
  private readonly dropsByLink: Int32Array;

  constructor(o: PfcOptions) {
    this.net = o.network;
    this.topology = o.topology;
    this.buffers = o.buffers;
    this.queues = o.queues;
    this.pool = o.pool;
    this.linkFrom = o.linkFrom;
    this.linkTo = o.linkTo;
    this.psPerByte = o.psPerByte;
    this.delayPs = o.delayPs;
    this.busyUntil = o.busyUntil;
    this.isHost = o.isHost;
    this.hostUplink = o.hostUplink;
    this.dropsByLink = o.dropsByLink;
    const n = o.linkFrom.length;
    this.paused = new Uint8Array(n);
    this.pauseStart = new Float64Array(n);
    this.pausedTotalPs = new Float64Array(n);
    this.pauseLog = new Array<number[] | undefined>(n);
    this.pauseFrames = new Int32Array(n);
    this.stormed = new Uint8Array(n);
    this.stormHeld = new Uint8Array(n);
  }

  /**
   * The NIC of `host` sends PAUSE without end from `startPs` to `endPs` (Infinity: to the end): its
   * switch stops sending it lossless traffic. Counted as one pause frame (a real NIC repeats it
   * before the quanta expire).
   */
  addPauseStorm(host: number, startPs: number, endPs: number): void {
    const up = this.hostUplink[host]!;
    if (up < 0) return;
    const link = up ^ 1;
    const arrive = Math.ceil(MIN_FRAME_WIRE_BYTES * this.psPerByte[up]!) + this.delayPs[up]!;
    this.pauseStorms.push({
      host,
      link,
      startPs: startPs + arrive,
      endPs: Number.isFinite(endPs) ? endPs + arrive : Infinity,
    });
    this.pauseFramesSent++;
    this.pauseFrames[link] = this.pauseFrames[link]! + 1;
    this.stormHeld[link] = 1;
    this.net.schedule(startPs + arrive, EV_PFC, link * PFC_OPS + PFC_PAUSE);
    if (Number.isFinite(endPs)) this.net.schedule(endPs + arrive, EV_PFC, link * PFC_OPS + PFC_RESUME);
  }

  /**
   * A PFC frame from the switch at the end of `ingress` to its upstream (SwitchBuffers decided to
   * pause, `on`, or resume): it waits for the frame in progress on the reverse link, is serialised
   * (64 B + preamble and gap), propagates, and takes effect after the upstream's response delay.
   */
  sendFrame(ingress: number, on: boolean): void {
    const now = this.net.now;
    const reverse = ingress ^ 1;
    const wait = Math.max(0, this.busyUntil[reverse]! - now);
    const ser = Math.ceil(MIN_FRAME_WIRE_BYTES * this.psPerByte[reverse]!);
    const response = this.buffers.config.pfc?.responseDelayPs[ingress] ?? 0;
    this.pauseFramesSent++;
    this.pauseFrames[ingress] = this.pauseFrames[ingress]! + 1;
    this.net.schedule(
      now + wait + ser + this.delayPs[reverse]! + response,
      EV_PFC,
      ingress * PFC_OPS + (on ? PFC_PAUSE : PFC_RESUME),
    );
  }

  /**
   * EV_PFC with payload link x PFC_OPS + op: a pause or resume frame takes effect on the link, or
   * the PFC watchdog looks at the link's queue, or ends its mitigation there.
   */
  onEvent(payload: number): void {
    const op = payload % PFC_OPS;
    const link = (payload - op) / PFC_OPS;
    const now = this.net.now;
    if (op === PFC_WATCHDOG_CHECK) {
      this.watchdogCheck(link);
      return;
    }
    if (op === PFC_WATCHDOG_RESTORE) {
      this.stormed[link] = 0;
      const wd = this.buffers.config.pfc?.watchdog;
      if (wd && this.paused[link] === 1)
        this.net.schedule(now + wd.timeoutPs, EV_PFC, link * PFC_OPS + PFC_WATCHDOG_CHECK);
      return;
    }
    if (op === PFC_PAUSE) {
      if (this.paused[link] === 0) {
        this.paused[link] = 1;
        this.pauseStart[link] = now;
        const wd = this.buffers.config.pfc?.watchdog;
        if (wd && this.isHost[this.linkFrom[link]!] === 0)
          this.net.schedule(now + wd.timeoutPs, EV_PFC, link * PFC_OPS + PFC_WATCHDOG_CHECK);
      }
    } else if (this.stormHeld[link] === 1 && !this.stormEnded(link)) {
      // Only the storm's own end resumes a port a storming NIC holds.
    } else if (this.paused[link] === 1) {
      this.paused[link] = 0;
      this.pausedTotalPs[link] = this.pausedTotalPs[link]! + now - this.pauseStart[link]!;
      let log = this.pauseLog[link];
      if (!log) this.pauseLog[link] = log = [];
      log.push(this.pauseStart[link]!, now);
      this.stormHeld[link] = 0;
      this.net.kick(link);
    }
  }

  private stormEnded(link: number): boolean {
    for (const storm of this.pauseStorms) if (storm.link === link && storm.endPs <= this.net.now) return true;
    return false;
  }

  /**
   * The watchdog's look at a paused switch queue: paused for the whole timeout with lossless
   * packets waiting (none can have left while paused) means stormed: flush it, take nothing for
   * the restoration time. An empty queue is looked at again a timeout later.
   */
  private watchdogCheck(link: number): void {
    const wd = this.buffers.config.pfc?.watchdog;
    const now = this.net.now;
    if (!wd || this.paused[link] === 0 || this.stormed[link] === 1) return;
    if (now - this.pauseStart[link]! < wd.timeoutPs) return; // a later pause has its own check
    const waiting = this.queues.packetsOf(link, CLS_LOSSLESS);
    if (waiting.length === 0) {
      this.net.schedule(now + wd.timeoutPs, EV_PFC, link * PFC_OPS + PFC_WATCHDOG_CHECK);
      return;
    }
    // Before the flush changes anything: is this queue part of a deadlock?
    for (const record of this.recordDeadlocks()) if (record.links.includes(link)) record.brokenPs = now;
    const from = this.linkFrom[link]!;
    for (let i = 0; i < waiting.length; i++) {
      const p = this.queues.dequeue(link, CLS_LOSSLESS);
      this.buffers.release(from, CLS_LOSSLESS, this.pool.ingress(p), this.pool.wire(p));
      this.pool.free(p);
    }
    this.net.drops += waiting.length;
    this.watchdogDrops += waiting.length;
    this.dropsByLink[link] = this.dropsByLink[link]! + waiting.length;
    this.stormed[link] = 1;
    this.watchdogEvents.push({ link, atPs: now, flushed: waiting.length });
    this.net.schedule(now + wd.restorationPs, EV_PFC, link * PFC_OPS + PFC_WATCHDOG_RESTORE);
  }

  /** Cycles of queues that can never move again, now (see pfc-deadlock.ts). */
  findDeadlocks(): number[][] {
    const outLinks: number[][] = this.topology.nodes.map(() => []);
    for (let link = 0; link < this.linkFrom.length; link++) outLinks[this.linkFrom[link]!]?.push(link);
    return findDeadlockCycles({
      linkCount: this.linkFrom.length,
      linkTo: this.linkTo,
      outLinks,
      isSwitch: (node) => this.isHost[node] === 0,
      blocked: (link) =>
        this.paused[link] === 1 &&
        this.stormed[link] === 0 &&
        (this.stormHeld[link] === 1 ||
          (this.isHost[this.linkTo[link]!] === 0 && this.buffers.pauseSent[link] === 1)),
      packets: (link) => this.queues.packetsOf(link, CLS_LOSSLESS),
      ingressOf: (p) => this.pool.ingress(p),
    });
  }

  /** Record the deadlocks standing now that are not recorded yet; returns the open records. */
  recordDeadlocks(): DeadlockRecord[] {
    const open: DeadlockRecord[] = [];
    for (const links of this.findDeadlocks()) {
      const key = [...links].sort((a, b) => a - b).join(',');
      let record = this.deadlocks.find(
        (d) => d.brokenPs < 0 && [...d.links].sort((a, b) => a - b).join(',') === key,
      );
      if (!record) {
        let formed = 0;
        let bytes = 0;
        const conns = new Set<number>();
        for (const link of links) {
          formed = Math.max(formed, this.pauseStart[link]!);
          for (const p of this.queues.packetsOf(link, CLS_LOSSLESS)) {
            bytes += this.pool.wire(p);
            conns.add(this.pool.conn(p));
          }
        }
        record = {
          links,
          formedPs: formed,
          detectedPs: this.net.now,
          brokenPs: -1,
          connections: [...conns].sort((a, b) => a - b),
          stuckBytes: bytes,
        };
        this.deadlocks.push(record);
      }
      open.push(record);
    }
    return open;
  }

  /** Time `link` has been paused so far, the pause in progress included. */
  pausedNow(link: number): number {
    const base = this.pausedTotalPs[link]!;
    return this.paused[link] === 1 ? base + this.net.now - this.pauseStart[link]! : base;
  }

  /** First moment in [fromPs, toPs] when `link` was paused, or -1. */
  firstPausedPs(link: number, fromPs: number, toPs: number): number {
    let first = Infinity;
    const consider = (start: number, end: number): void => {
      if (end > fromPs && start <= toPs) first = Math.min(first, Math.max(start, fromPs));
    };
    const log = this.pauseLog[link];
    if (log) for (let j = 0; j < log.length; j += 2) consider(log[j]!, log[j + 1]!);
    if (this.paused[link] === 1) consider(this.pauseStart[link]!, Infinity);
    return Number.isFinite(first) ? first : -1;
  }

  /**
   * Time within [fromPs, toPs] during which at least one of `links` was paused: the union of their
   * pause intervals, so never longer than the window (a sum over links would count overlaps twice).
   */
  pausedUnionPs(links: ArrayLike<number>, fromPs: number, toPs: number): number {
    const starts: number[] = [];
    const ends: number[] = [];
    const clip = (start: number, end: number): void => {
      const s = Math.max(start, fromPs);
      const e = Math.min(end, toPs);
      if (e > s) {
        starts.push(s);
        ends.push(e);
      }
    };
    for (let i = 0; i < links.length; i++) {
      const link = links[i]!;
      const log = this.pauseLog[link];
      if (log) for (let j = 0; j < log.length; j += 2) clip(log[j]!, log[j + 1]!);
      if (this.paused[link] === 1) clip(this.pauseStart[link]!, this.net.now);
    }
    return unionLength(starts, ends);
  }
}
