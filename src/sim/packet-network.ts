/**
 * The packet-level network: output-queued switches with per-class FIFOs served in strict priority,
 * store-and-forward links, host NICs that pull from their connections round-robin, and PFC pause
 * and resume frames that take real time. Up to two events per packet per hop (arrival at the next
 * node, and end of serialisation when more packets wait for the port). The event loop, the
 * connections' messages and the sampling live in the Simulator built on top of it.
 */
import { createRng, type Rng } from '../core/rng.js';
import { EV_ARRIVE, EV_HOST_WAKE, EV_PFC, EV_TX_DONE } from './event-kinds.js';
import { ADMIT_DROP, SwitchBuffers, type BufferConfig } from './net/buffers.js';
import { KIND_DATA, PacketPool } from './net/packet-pool.js';
import { PortQueues } from './net/port-queues.js';
import { unionLength } from './net/intervals.js';
import { findDeadlockCycles } from './net/pfc-deadlock.js';
import { MIN_FRAME_WIRE_BYTES } from './net/wire.js';
import type { Topology } from './topo/types.js';
import { CLASS_COUNT, CLS_LOSSLESS, CLS_LOSSY, type Connection } from './transport/connection.js';

/** EV_PFC payloads: link x 4 + one of these. */
const PFC_RESUME = 0;
const PFC_PAUSE = 1;
const PFC_WATCHDOG_CHECK = 2;
const PFC_WATCHDOG_RESTORE = 3;

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

export abstract class PacketNetwork {
  readonly pool = new PacketPool();
  /** Current simulated time in picoseconds. */
  now = 0;
  readonly rng: Rng;
  readonly buffers: SwitchBuffers;
  readonly connections: Connection[] = [];
  // Per link.
  readonly linkFrom: Int32Array;
  readonly linkTo: Int32Array;
  private readonly psPerByte: Float64Array;
  private readonly delayPs: Float64Array;
  /** End of the transmission in progress (the port is free from then on). */
  private readonly busyUntil: Float64Array;
  /** 1 for a token-bucket port (TopoLink.chargedAfter): a packet travels at once, its time is charged to the next. */
  private readonly chargedAfter: Uint8Array;
  /** 1 while an end-of-transmission event is pending: it will pick the port's next packet. */
  private readonly txPending: Uint8Array;
  private readonly queues: PortQueues;
  readonly paused: Uint8Array;
  private readonly pauseStart: Float64Array;
  readonly pausedTotalPs: Float64Array;
  /** Finished pauses per link as flat [start, end, start, end, ...] in ps (only links ever paused). */
  private readonly pauseLog: (number[] | undefined)[];
  readonly pauseFrames: Int32Array;
  readonly dropsByLink: Int32Array;
  // Per node.
  private readonly isHost: Uint8Array;
  private readonly hostUplink: Int32Array;
  /** The connections each host sends on, in the order its NIC serves them round-robin. */
  protected readonly hostConns: Connection[][];
  private readonly rr: Int32Array;
  private readonly wakeAt: Float64Array;
  drops = 0;
  losslessDrops = 0;
  ecnMarks = 0;
  pauseFramesSent = 0;
  /** Packets put on a link (one per packet per hop): htsim's events-per-packet-hop denominator. */
  packetHops = 0;
  private readonly ecnOn: boolean;
  /** PFC watchdog: 1 while a queue is stormed (its lossless packets dropped); drops it made. */
  private readonly stormed: Uint8Array;
  watchdogDrops = 0;
  readonly watchdogEvents: WatchdogRecord[] = [];
  readonly deadlocks: DeadlockRecord[] = [];
  /** 1 while a storming NIC holds the switch port towards it paused. */
  private readonly stormHeld: Uint8Array;
  readonly pauseStorms: PauseStormRecord[] = [];
  /** Per link, the probability that a packet is lost on it; null while no link is lossy. */
  private lossProbability: Float64Array | null = null;
  /** Packets lost on lossy links (also counted in `drops` and `dropsByLink`). */
  randomDrops = 0;

  constructor(
    readonly topology: Topology,
    bufferConfig: BufferConfig,
    seed: number,
  ) {
    this.rng = createRng(seed);
    const links = topology.links;
    const n = links.length;
    this.linkFrom = new Int32Array(n);
    this.linkTo = new Int32Array(n);
    this.psPerByte = new Float64Array(n);
    this.delayPs = new Float64Array(n);
    this.txPending = new Uint8Array(n);
    this.busyUntil = new Float64Array(n);
    this.chargedAfter = new Uint8Array(n);
    this.queues = new PortQueues(this.pool, n);
    this.paused = new Uint8Array(n);
    this.pauseStart = new Float64Array(n);
    this.pausedTotalPs = new Float64Array(n);
    this.pauseLog = new Array<number[] | undefined>(n);
    this.pauseFrames = new Int32Array(n);
    this.dropsByLink = new Int32Array(n);
    for (const link of links) {
      this.linkFrom[link.id] = link.from;
      this.linkTo[link.id] = link.to;
      this.psPerByte[link.id] = 8e12 / link.rateBps;
      this.delayPs[link.id] = Math.round(link.delayNs * 1000);
      if (link.chargedAfter) this.chargedAfter[link.id] = 1;
    }
    const nodes = topology.nodes.length;
    this.isHost = new Uint8Array(nodes);
    this.hostUplink = new Int32Array(nodes).fill(-1);
    this.hostConns = [];
    this.rr = new Int32Array(nodes);
    this.wakeAt = new Float64Array(nodes).fill(Infinity);
    for (const node of topology.nodes) {
      this.isHost[node.id] = node.kind === 'host' ? 1 : 0;
      this.hostConns.push([]);
    }
    for (const link of links) if (this.isHost[link.from] === 1) this.hostUplink[link.from] = link.id;
    this.buffers = new SwitchBuffers(topology, bufferConfig, (ingress, on) => this.sendPause(ingress, on));
    this.ecnOn = bufferConfig.ecn !== null;
    this.stormed = new Uint8Array(n);
    this.stormHeld = new Uint8Array(n);
  }

  /**
   * Every packet on the cable between `host` and its switch, both directions, is lost with
   * probability `loss`, drawn from the run's seeded generator (no draw on a link that loses nothing,
   * so scenarios without loss keep their random sequence).
   */
  setHostPortLoss(host: number, loss: number): void {
    const probability = (this.lossProbability ??= new Float64Array(this.linkFrom.length));
    for (let link = 0; link < this.linkFrom.length; link++) {
      if (this.linkFrom[link] === host || this.linkTo[link] === host) probability[link] = loss;
    }
  }

  /**
   * The NIC of `host` sends PAUSE without end from `startPs` to `endPs` (Infinity: to the end): its
   * switch stops sending it lossless traffic. Counted as one pause frame (a real NIC repeats it
   * before the quanta expire).
   */
  addPauseStorm(host: number, startPs: number, endPs: number): void {
    const up = this.hostUplink[host] as number;
    if (up < 0) return;
    const link = up ^ 1;
    const arrive =
      Math.ceil(MIN_FRAME_WIRE_BYTES * (this.psPerByte[up] as number)) + (this.delayPs[up] as number);
    this.pauseStorms.push({
      host,
      link,
      startPs: startPs + arrive,
      endPs: Number.isFinite(endPs) ? endPs + arrive : Infinity,
    });
    this.pauseFramesSent++;
    this.pauseFrames[link] = (this.pauseFrames[link] as number) + 1;
    this.stormHeld[link] = 1;
    this.schedule(startPs + arrive, EV_PFC, link * 4 + PFC_PAUSE);
    if (Number.isFinite(endPs)) this.schedule(endPs + arrive, EV_PFC, link * 4 + PFC_RESUME);
  }

  /** Cycles of queues that can never move again, now (see net/pfc-deadlock.ts). */
  findDeadlocks(): number[][] {
    const outLinks: number[][] = this.topology.nodes.map(() => []);
    for (let link = 0; link < this.linkFrom.length; link++)
      outLinks[this.linkFrom[link] as number]?.push(link);
    return findDeadlockCycles({
      linkCount: this.linkFrom.length,
      linkTo: this.linkTo,
      outLinks,
      isSwitch: (node) => this.isHost[node] === 0,
      blocked: (link) =>
        this.paused[link] === 1 &&
        this.stormed[link] === 0 &&
        (this.stormHeld[link] === 1 ||
          (this.isHost[this.linkTo[link] as number] === 0 && this.buffers.pauseSent[link] === 1)),
      packets: (link) => this.queues.packetsOf(link, CLS_LOSSLESS),
      ingressOf: (p) => this.pool.ingress[p] as number,
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
          formed = Math.max(formed, this.pauseStart[link] as number);
          for (const p of this.queues.packetsOf(link, CLS_LOSSLESS)) {
            bytes += this.pool.wire[p] as number;
            conns.add(this.pool.conn[p] as number);
          }
        }
        record = {
          links,
          formedPs: formed,
          detectedPs: this.now,
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

  /** First moment in [fromPs, toPs] when `link` was paused, or -1. */
  firstPausedPs(link: number, fromPs: number, toPs: number): number {
    let first = Infinity;
    const consider = (start: number, end: number): void => {
      if (end > fromPs && start <= toPs) first = Math.min(first, Math.max(start, fromPs));
    };
    const log = this.pauseLog[link];
    if (log) for (let j = 0; j < log.length; j += 2) consider(log[j] as number, log[j + 1] as number);
    if (this.paused[link] === 1) consider(this.pauseStart[link] as number, Infinity);
    return Number.isFinite(first) ? first : -1;
  }

  abstract schedule(timePs: number, type: number, payload: number): void;

  /** Bytes queued per link and class, at `link * CLASS_COUNT + cls`. */
  get qBytes(): Float64Array {
    return this.queues.classBytes;
  }

  get portBytes(): Float64Array {
    return this.queues.portBytes;
  }

  get peakPortBytes(): Float64Array {
    return this.queues.peakPortBytes;
  }

  sendControl(conn: Connection, kind: number, cls: number, seq: number, ecnEcho: number, ts: number): number {
    const p = this.pool.alloc(conn.id, kind, cls, seq, 0, MIN_FRAME_WIRE_BYTES, ts);
    this.pool.ecn[p] = ecnEcho;
    const link = conn.reverse[0] as number;
    this.queues.enqueue(link, cls, p);
    this.kick(link);
    return p;
  }

  kickHost(host: number): void {
    const link = this.hostUplink[host] as number;
    if (link >= 0) this.kick(link);
  }

  /**
   * Something may be sent on `link`: start now if the port is free, else make sure an
   * end-of-transmission event will look again. A port that finishes with nothing queued gets no
   * such event, which saves one event per packet-hop on uncongested paths.
   */
  private kick(link: number): void {
    if (this.txPending[link] === 1) return;
    const until = this.busyUntil[link] as number;
    if (this.now >= until) {
      this.startTx(link);
    } else {
      this.txPending[link] = 1;
      this.schedule(until, EV_TX_DONE, link);
    }
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
      const link = links[i] as number;
      const log = this.pauseLog[link];
      if (log) for (let j = 0; j < log.length; j += 2) clip(log[j] as number, log[j + 1] as number);
      if (this.paused[link] === 1) clip(this.pauseStart[link] as number, this.now);
    }
    return unionLength(starts, ends);
  }

  pausedNow(link: number): number {
    const base = this.pausedTotalPs[link] as number;
    return this.paused[link] === 1 ? base + this.now - (this.pauseStart[link] as number) : base;
  }

  /** EV_TX_DONE: the port finished a packet; send its next one, if any. */
  protected onTxDone(link: number): void {
    this.txPending[link] = 0;
    this.startTx(link);
  }

  /** EV_HOST_WAKE at `timePs`: the host's NIC looks at its connections again. */
  protected onHostWake(host: number, timePs: number): void {
    if (this.wakeAt[host] === timePs) this.wakeAt[host] = Infinity;
    this.kickHost(host);
  }

  private startTx(link: number): void {
    const queues = this.queues;
    const cls = queues.nextClass(link, this.paused[link] === 1);
    const from = this.linkFrom[link] as number;
    let p = -1;
    if (cls >= 0) {
      p = queues.dequeue(link, cls);
      if (this.isHost[from] === 0) {
        this.buffers.release(from, cls, this.pool.ingress[p] as number, this.pool.wire[p] as number);
        // ECN is marked at dequeue, on the queue the packet leaves behind (as DCQCN's CP and
        // ns-3's HPCC switch do): the congestion signal is not delayed by the queue itself.
        if (this.ecnOn && this.pool.ecn[p] === 1) this.markEcn(p, link * CLASS_COUNT + cls);
      }
    } else if (this.isHost[from] === 1) {
      p = this.pullFromHost(from, link);
    }
    if (p < 0) return;
    const end = this.now + Math.ceil((this.pool.wire[p] as number) * (this.psPerByte[link] as number));
    this.packetHops++;
    this.busyUntil[link] = end;
    // htb (sch_htb.c): a class with tokens dequeues the packet now and is charged its length after.
    const departs = this.chargedAfter[link] === 1 ? this.now : end;
    this.schedule(departs + (this.delayPs[link] as number), EV_ARRIVE, p);
    // Look again at the end only if something is waiting (a host may have more to pull).
    if (this.isHost[from] === 1 || queues.hasWaiting(link)) {
      this.txPending[link] = 1;
      this.schedule(end, EV_TX_DONE, link);
    }
  }

  private markEcn(p: number, q: number): void {
    const probability = this.buffers.markProbability(this.queues.classBytes[q] as number);
    if (probability > 0 && (probability >= 1 || this.rng.next() < probability)) {
      this.pool.ecn[p] = 2;
      this.ecnMarks++;
    }
  }

  private pullFromHost(host: number, link: number): number {
    const conns = this.hostConns[host] as Connection[];
    const n = conns.length;
    if (n === 0) return -1;
    const now = this.now;
    const start = this.rr[host] as number;
    const paused = this.paused[link] === 1;
    let wake = Infinity;
    for (let i = 0; i < n; i++) {
      const index = (start + i) % n;
      const conn = conns[index] as Connection;
      if (paused && conn.cls === CLS_LOSSLESS) continue;
      const ready = conn.readiness(now);
      if (ready <= now) {
        this.rr[host] = (index + 1) % n;
        return conn.nextPacket(now);
      }
      if (ready < wake) wake = ready;
    }
    if (wake < (this.wakeAt[host] as number)) {
      this.wakeAt[host] = wake;
      this.schedule(wake, EV_HOST_WAKE, host);
    }
    return -1;
  }

  /** EV_ARRIVE: a packet reached the end of its current hop. */
  protected onArrive(p: number): void {
    const pool = this.pool;
    const conn = this.connections[pool.conn[p] as number] as Connection;
    const isData = pool.kind[p] === KIND_DATA;
    const route = isData ? conn.forward : conn.reverse;
    const hop = pool.hop[p] as number;
    const link = route[hop] as number;
    const lossy = this.lossProbability;
    if (lossy !== null) {
      const loss = lossy[link] as number;
      if (loss > 0 && this.rng.next() < loss) {
        this.drops++;
        this.randomDrops++;
        this.dropsByLink[link] = (this.dropsByLink[link] as number) + 1;
        pool.free(p);
        return;
      }
    }
    const node = this.linkTo[link] as number;
    if (this.isHost[node] === 1) {
      if (isData) conn.onData(p);
      else conn.onControl(p);
      pool.free(p);
      return;
    }
    const out = route[hop + 1] as number;
    pool.hop[p] = hop + 1;
    const cls = pool.cls[p] as number;
    const wire = pool.wire[p] as number;
    const buffers = this.buffers;
    if (cls === CLS_LOSSLESS && this.stormed[out] === 1) {
      // A stormed queue takes nothing while the watchdog holds it (SONiC/Junos "drop" action).
      this.drops++;
      this.watchdogDrops++;
      this.dropsByLink[out] = (this.dropsByLink[out] as number) + 1;
      pool.free(p);
      return;
    }
    let admitted: number;
    if (cls === CLS_LOSSLESS) {
      admitted = buffers.admitLossless(node, link, wire);
      pool.ingress[p] = link;
    } else if (cls === CLS_LOSSY) {
      admitted = buffers.admitLossy(node, this.queues.classBytes[out * CLASS_COUNT + cls] as number, wire);
    } else {
      admitted = buffers.admitOther(node, wire);
    }
    if (admitted === ADMIT_DROP) {
      this.drops++;
      if (cls === CLS_LOSSLESS) this.losslessDrops++;
      this.dropsByLink[out] = (this.dropsByLink[out] as number) + 1;
      pool.free(p);
      return;
    }
    this.queues.enqueue(out, cls, p);
    this.kick(out);
  }

  /**
   * A PFC frame from the switch at the end of `ingress` to its upstream: it waits for the frame in
   * progress on the reverse link, is serialised (64 B + preamble and gap), propagates, and takes
   * effect after the upstream's response delay.
   */
  private sendPause(ingress: number, on: boolean): void {
    const reverse = ingress ^ 1;
    const wait = Math.max(0, (this.busyUntil[reverse] as number) - this.now);
    const ser = Math.ceil(MIN_FRAME_WIRE_BYTES * (this.psPerByte[reverse] as number));
    const response = this.buffers.config.pfc?.responseDelayPs[ingress] ?? 0;
    this.pauseFramesSent++;
    this.pauseFrames[ingress] = (this.pauseFrames[ingress] as number) + 1;
    this.schedule(
      this.now + wait + ser + (this.delayPs[reverse] as number) + response,
      EV_PFC,
      ingress * 4 + (on ? PFC_PAUSE : PFC_RESUME),
    );
  }

  /**
   * EV_PFC with payload link x 4 + op: a pause or resume frame takes effect on the link, or the
   * PFC watchdog looks at the link's queue, or ends its mitigation there.
   */
  protected onPfc(payload: number): void {
    const link = payload >> 2;
    const op = payload & 3;
    if (op === PFC_WATCHDOG_CHECK) {
      this.watchdogCheck(link);
      return;
    }
    if (op === PFC_WATCHDOG_RESTORE) {
      this.stormed[link] = 0;
      const wd = this.buffers.config.pfc?.watchdog;
      if (wd && this.paused[link] === 1)
        this.schedule(this.now + wd.timeoutPs, EV_PFC, link * 4 + PFC_WATCHDOG_CHECK);
      return;
    }
    if (op === PFC_PAUSE) {
      if (this.paused[link] === 0) {
        this.paused[link] = 1;
        this.pauseStart[link] = this.now;
        const wd = this.buffers.config.pfc?.watchdog;
        if (wd && this.isHost[this.linkFrom[link] as number] === 0)
          this.schedule(this.now + wd.timeoutPs, EV_PFC, link * 4 + PFC_WATCHDOG_CHECK);
      }
    } else if (this.stormHeld[link] === 1 && !this.stormEnded(link)) {
      // Only the storm's own end resumes a port a storming NIC holds.
    } else if (this.paused[link] === 1) {
      this.paused[link] = 0;
      this.pausedTotalPs[link] =
        (this.pausedTotalPs[link] as number) + this.now - (this.pauseStart[link] as number);
      let log = this.pauseLog[link];
      if (!log) this.pauseLog[link] = log = [];
      log.push(this.pauseStart[link] as number, this.now);
      this.stormHeld[link] = 0;
      this.kick(link);
    }
  }

  private stormEnded(link: number): boolean {
    for (const storm of this.pauseStorms) if (storm.link === link && storm.endPs <= this.now) return true;
    return false;
  }

  /**
   * The watchdog's look at a paused switch queue: paused for the whole timeout with lossless
   * packets waiting (none can have left while paused) means stormed: flush it, take nothing for
   * the restoration time. An empty queue is looked at again a timeout later.
   */
  private watchdogCheck(link: number): void {
    const wd = this.buffers.config.pfc?.watchdog;
    if (!wd || this.paused[link] === 0 || this.stormed[link] === 1) return;
    if (this.now - (this.pauseStart[link] as number) < wd.timeoutPs) return; // a later pause has its own check
    const waiting = this.queues.packetsOf(link, CLS_LOSSLESS);
    if (waiting.length === 0) {
      this.schedule(this.now + wd.timeoutPs, EV_PFC, link * 4 + PFC_WATCHDOG_CHECK);
      return;
    }
    // Before the flush changes anything: is this queue part of a deadlock?
    for (const record of this.recordDeadlocks()) if (record.links.includes(link)) record.brokenPs = this.now;
    const from = this.linkFrom[link] as number;
    for (let i = 0; i < waiting.length; i++) {
      const p = this.queues.dequeue(link, CLS_LOSSLESS);
      this.buffers.release(from, CLS_LOSSLESS, this.pool.ingress[p] as number, this.pool.wire[p] as number);
      this.pool.free(p);
    }
    this.drops += waiting.length;
    this.watchdogDrops += waiting.length;
    this.dropsByLink[link] = (this.dropsByLink[link] as number) + waiting.length;
    this.stormed[link] = 1;
    this.watchdogEvents.push({ link, atPs: this.now, flushed: waiting.length });
    this.schedule(this.now + wd.restorationPs, EV_PFC, link * 4 + PFC_WATCHDOG_RESTORE);
  }
}
