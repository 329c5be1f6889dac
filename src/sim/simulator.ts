/**
 * The packet-level core: output-queued switches with per-class FIFOs served in strict priority,
 * store-and-forward links, host NICs that pull from their connections round-robin, PFC pause and
 * resume frames that take real time, and the event loop. Up to two events per packet per hop
 * (arrival at the next node, and end of serialisation when more packets wait for the port).
 */
import { createRng, type Rng } from '../core/rng.js';
import { EventQueue } from './engine/event-queue.js';
import { ADMIT_DROP, SwitchBuffers, type BufferConfig } from './net/buffers.js';
import { KIND_DATA, PacketPool } from './net/packet-pool.js';
import { Sampler } from './net/sampler.js';
import { MIN_FRAME_WIRE_BYTES } from './net/wire.js';
import type { Topology } from './topo/types.js';
import {
  CLASS_COUNT,
  CLS_CONTROL,
  CLS_LOSSLESS,
  CLS_LOSSY,
  EV_CC_TIMER,
  EV_CONN_TIMER,
  type Connection,
  type SimContext,
  type TransportCounters,
} from './transport/connection.js';

const EV_TX_DONE = 1;
const EV_ARRIVE = 2;
const EV_HOST_WAKE = 3;
const EV_PFC = 6;
const EV_APP = 7;
const EV_SAMPLE = 8;
const MAX_SAMPLED_CONNECTIONS = 64;

export interface MessageListener {
  onMessage(conn: Connection, tag: number, nowPs: number): void;
  readonly done: boolean;
}

export class Simulator implements SimContext {
  readonly pool = new PacketPool();
  readonly queue = new EventQueue(4096);
  now = 0;
  events = 0;
  readonly counters: TransportCounters = { retransmittedPackets: 0, timeouts: 0, cnps: 0, ecnEchoes: 0 };
  readonly rng: Rng;
  readonly buffers: SwitchBuffers;
  readonly connections: Connection[] = [];
  private readonly listeners: MessageListener[] = [];
  private readonly connListener: number[] = [];
  private readonly appActions: (() => void)[] = [];
  private readonly freeAppSlots: number[] = [];
  // Per link.
  readonly linkFrom: Int32Array;
  readonly linkTo: Int32Array;
  private readonly psPerByte: Float64Array;
  private readonly delayPs: Float64Array;
  /** End of the transmission in progress (the port is free from then on). */
  private readonly busyUntil: Float64Array;
  /** 1 while an end-of-transmission event is pending: it will pick the port's next packet. */
  private readonly txPending: Uint8Array;
  private readonly qHead: Int32Array;
  private readonly qTail: Int32Array;
  readonly qBytes: Float64Array;
  readonly portBytes: Float64Array;
  readonly peakPortBytes: Float64Array;
  readonly paused: Uint8Array;
  private readonly pauseStart: Float64Array;
  readonly pausedTotalPs: Float64Array;
  readonly pauseFrames: Int32Array;
  readonly dropsByLink: Int32Array;
  // Per node.
  private readonly isHost: Uint8Array;
  private readonly hostUplink: Int32Array;
  private readonly hostConns: Connection[][];
  private readonly rr: Int32Array;
  private readonly wakeAt: Float64Array;
  drops = 0;
  losslessDrops = 0;
  ecnMarks = 0;
  pauseFramesSent = 0;
  deliveredBytes = 0;
  offeredBytes = 0;
  /** Completion time of every message (offer to last byte delivered), for FCT percentiles. */
  readonly messageFctPs: number[] = [];
  /** Packets put on a link (one per packet per hop): htsim's events-per-packet-hop denominator. */
  packetHops = 0;
  private pendingWork = 0;
  private readonly ecnOn: boolean;
  private sampleIntervalPs: number;
  sampler: Sampler;

  constructor(
    readonly topology: Topology,
    bufferConfig: BufferConfig,
    seed: number,
    sampleIntervalPs: number,
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
    this.qHead = new Int32Array(n * CLASS_COUNT).fill(-1);
    this.qTail = new Int32Array(n * CLASS_COUNT).fill(-1);
    this.qBytes = new Float64Array(n * CLASS_COUNT);
    this.portBytes = new Float64Array(n);
    this.peakPortBytes = new Float64Array(n);
    this.paused = new Uint8Array(n);
    this.pauseStart = new Float64Array(n);
    this.pausedTotalPs = new Float64Array(n);
    this.pauseFrames = new Int32Array(n);
    this.dropsByLink = new Int32Array(n);
    for (const link of links) {
      this.linkFrom[link.id] = link.from;
      this.linkTo[link.id] = link.to;
      this.psPerByte[link.id] = 8e12 / link.rateBps;
      this.delayPs[link.id] = Math.round(link.delayNs * 1000);
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
    this.sampleIntervalPs = sampleIntervalPs;
    this.sampler = new Sampler(n, sampleIntervalPs);
  }

  /** Register a connection built by a transport factory; the listener hears its message ends. */
  addConnection(make: (id: number) => Connection, listener: MessageListener): Connection {
    const conn = make(this.connections.length);
    this.connections.push(conn);
    let index = this.listeners.indexOf(listener);
    if (index < 0) index = this.listeners.push(listener) - 1;
    this.connListener.push(index);
    this.hostConns[conn.src]?.push(conn);
    return conn;
  }

  /** The application hands `bytes` more to the connection, as one message named `tag`. */
  offer(conn: Connection, bytes: number, tag: number): void {
    conn.appLimit += bytes;
    conn.messageEnds.push(conn.appLimit);
    conn.messageTags.push(tag);
    conn.messageOfferedPs.push(this.now);
    this.offeredBytes += bytes;
    if (conn.firstSendPs < 0) conn.pausedAtStartPs = this.pausedOnRoute(conn);
    this.kickHost(conn.src);
  }

  /** Run `action` at simulated time `atPs` (workload logic: flow starts, compute phases). */
  at(atPs: number, action: () => void): void {
    const slot = this.freeAppSlots.pop() ?? this.appActions.length;
    this.appActions[slot] = action;
    this.schedule(atPs, EV_APP, slot);
  }

  schedule(timePs: number, type: number, payload: number): void {
    if (type !== EV_SAMPLE) this.pendingWork++;
    this.queue.push(timePs, type, payload);
  }

  sendControl(conn: Connection, kind: number, cls: number, seq: number, ecnEcho: number, ts: number): number {
    const p = this.pool.alloc(conn.id, kind, cls, seq, 0, MIN_FRAME_WIRE_BYTES, ts);
    this.pool.ecn[p] = ecnEcho;
    const link = conn.reverse[0] as number;
    this.enqueue(link, cls, p);
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

  delivered(conn: Connection): void {
    const ends = conn.messageEnds;
    while (conn.messageHead < ends.length && conn.delivered >= (ends[conn.messageHead] as number)) {
      const i = conn.messageHead++;
      const end = ends[i] as number;
      const start = i === 0 ? 0 : (ends[i - 1] as number);
      this.deliveredBytes += end - start;
      this.messageFctPs.push(this.now - (conn.messageOfferedPs[i] as number));
      if (conn.messageHead === ends.length) conn.pausedExposurePs += this.pausedOnRoute(conn) - conn.pausedAtStartPs;
      this.listeners[this.connListener[conn.id] as number]?.onMessage(conn, conn.messageTags[i] as number, this.now);
    }
  }

  /** Cumulative paused time of the route's links, including pauses still in progress. */
  pausedOnRoute(conn: Connection): number {
    let total = 0;
    for (const link of conn.forward) total += this.pausedNow(link);
    return total;
  }

  pausedNow(link: number): number {
    const base = this.pausedTotalPs[link] as number;
    return this.paused[link] === 1 ? base + this.now - (this.pauseStart[link] as number) : base;
  }

  private enqueue(link: number, cls: number, p: number): void {
    const q = link * CLASS_COUNT + cls;
    const pool = this.pool;
    pool.next[p] = -1;
    const tail = this.qTail[q] as number;
    if (tail < 0) this.qHead[q] = p;
    else pool.next[tail] = p;
    this.qTail[q] = p;
    const wire = pool.wire[p] as number;
    this.qBytes[q] = (this.qBytes[q] as number) + wire;
    const total = (this.portBytes[link] as number) + wire;
    this.portBytes[link] = total;
    if (total > (this.peakPortBytes[link] as number)) this.peakPortBytes[link] = total;
  }

  private dequeue(link: number, cls: number): number {
    const q = link * CLASS_COUNT + cls;
    const pool = this.pool;
    const p = this.qHead[q] as number;
    const next = pool.next[p] as number;
    this.qHead[q] = next;
    if (next < 0) this.qTail[q] = -1;
    const wire = pool.wire[p] as number;
    this.qBytes[q] = (this.qBytes[q] as number) - wire;
    this.portBytes[link] = (this.portBytes[link] as number) - wire;
    return p;
  }

  private startTx(link: number): void {
    const base = link * CLASS_COUNT;
    let p = -1;
    let cls: number;
    if ((this.qHead[base + CLS_CONTROL] as number) >= 0) cls = CLS_CONTROL;
    else if ((this.qHead[base + CLS_LOSSLESS] as number) >= 0 && this.paused[link] === 0) cls = CLS_LOSSLESS;
    else if ((this.qHead[base + CLS_LOSSY] as number) >= 0) cls = CLS_LOSSY;
    else cls = -1;
    const from = this.linkFrom[link] as number;
    if (cls >= 0) {
      p = this.dequeue(link, cls);
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
    this.schedule(end + (this.delayPs[link] as number), EV_ARRIVE, p);
    // Look again at the end only if something is waiting (a host may have more to pull).
    if (
      this.isHost[from] === 1 ||
      (this.qHead[base + CLS_CONTROL] as number) >= 0 ||
      (this.qHead[base + CLS_LOSSLESS] as number) >= 0 ||
      (this.qHead[base + CLS_LOSSY] as number) >= 0
    ) {
      this.txPending[link] = 1;
      this.schedule(end, EV_TX_DONE, link);
    }
  }

  private markEcn(p: number, q: number): void {
    const probability = this.buffers.markProbability(this.qBytes[q] as number);
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

  private onArrive(p: number): void {
    const pool = this.pool;
    const conn = this.connections[pool.conn[p] as number] as Connection;
    const isData = pool.kind[p] === KIND_DATA;
    const route = isData ? conn.forward : conn.reverse;
    const hop = pool.hop[p] as number;
    const link = route[hop] as number;
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
    let admitted: number;
    if (cls === CLS_LOSSLESS) {
      admitted = buffers.admitLossless(node, link, wire);
      pool.ingress[p] = link;
    } else if (cls === CLS_LOSSY) {
      admitted = buffers.admitLossy(node, this.qBytes[out * CLASS_COUNT + cls] as number, wire);
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
    this.enqueue(out, cls, p);
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
    this.schedule(this.now + wait + ser + (this.delayPs[reverse] as number) + response, EV_PFC, ingress * 2 + (on ? 1 : 0));
  }

  private onPfc(payload: number): void {
    const link = payload >> 1;
    if ((payload & 1) === 1) {
      if (this.paused[link] === 0) {
        this.paused[link] = 1;
        this.pauseStart[link] = this.now;
      }
    } else if (this.paused[link] === 1) {
      this.paused[link] = 0;
      this.pausedTotalPs[link] = (this.pausedTotalPs[link] as number) + this.now - (this.pauseStart[link] as number);
      this.kick(link);
    }
  }

  private sample(): void {
    const s = this.sampler;
    const row = s.row();
    const n = this.linkFrom.length;
    s.times[row] = this.now;
    s.delivered[row] = this.deliveredBytes;
    const offset = row * n;
    for (let link = 0; link < n; link++) {
      s.queues[offset + link] = this.portBytes[link] as number;
      s.paused[offset + link] = this.pausedNow(link);
    }
    const c = s.connCount;
    for (let i = 0; i < c; i++) s.connDelivered[row * c + i] = (this.connections[i] as Connection).delivered;
  }

  private allDone(): boolean {
    for (const listener of this.listeners) if (!listener.done) return false;
    return true;
  }

  /** Run until every workload is done, nothing is left to do, or `maxTimePs`. */
  run(maxTimePs: number, onProgress?: (nowPs: number) => void): 'done' | 'stalled' | 'time-limit' {
    const q = this.queue;
    // Per-flow delivery is sampled for the first connections (enough for fairness studies).
    this.sampler = new Sampler(this.linkFrom.length, this.sampleIntervalPs, Math.min(this.connections.length, MAX_SAMPLED_CONNECTIONS));
    this.schedule(0, EV_SAMPLE, 0);
    let checkEvery = 0;
    while (q.pop()) {
      const time = q.time;
      if (time > maxTimePs) return 'time-limit';
      this.now = time;
      this.events++;
      const type = q.type;
      const a = q.payload;
      if (type !== EV_SAMPLE) this.pendingWork--;
      switch (type) {
        case EV_TX_DONE:
          this.txPending[a] = 0;
          this.startTx(a);
          break;
        case EV_ARRIVE:
          this.onArrive(a);
          break;
        case EV_HOST_WAKE:
          if (this.wakeAt[a] === time) this.wakeAt[a] = Infinity;
          this.kickHost(a);
          break;
        case EV_CONN_TIMER:
        case EV_CC_TIMER:
          this.connections[a]?.onTimer(type, time);
          break;
        case EV_PFC:
          this.onPfc(a);
          break;
        case EV_APP: {
          const action = this.appActions[a];
          this.freeAppSlots.push(a);
          action?.();
          break;
        }
        case EV_SAMPLE:
          this.sample();
          if (this.pendingWork > 0) this.queue.push(time + this.sampler.intervalPs, EV_SAMPLE, 0);
          break;
      }
      if (type === EV_APP || type === EV_CONN_TIMER || (type === EV_ARRIVE && this.deliveredBytes === this.offeredBytes)) {
        if (this.allDone()) {
          this.sample();
          return 'done';
        }
      }
      if (onProgress && ++checkEvery === 65536) {
        checkEvery = 0;
        onProgress(time);
      }
    }
    return this.allDone() ? 'done' : 'stalled';
  }
}
