/**
 * The packet-level simulator: the network of packet-network.ts plus what drives it — the event
 * loop, the connections' messages (offer, delivery, completion times), the workloads' timed
 * actions and the periodic samples for the result's series.
 */
import { EventQueue } from './engine/event-queue.js';
import {
  EV_APP,
  EV_ARRIVE,
  EV_CC_TIMER,
  EV_CONN_TIMER,
  EV_HOST_WAKE,
  EV_PFC,
  EV_SAMPLE,
  EV_TX_DONE,
} from './event-kinds.js';
import type { BufferConfig } from './net/buffers.js';
import { Sampler } from './net/sampler.js';
import { PacketNetwork } from './packet-network.js';
import type { Topology } from './topo/types.js';
import type { Connection, SimContext, TransportCounters } from './transport/connection.js';

const MAX_SAMPLED_CONNECTIONS = 64;
/** Initial capacity of the event queue, which doubles as it fills (chosen: small runs never grow it). */
const INITIAL_EVENT_SLOTS = 4096;
/** Events between two onProgress calls (chosen: a power of two, a few ms of simulation work). */
const PROGRESS_EVERY_EVENTS = 65536;

export interface MessageListener {
  onMessage(conn: Connection, tag: number, nowPs: number): void;
  readonly done: boolean;
}

export class Simulator extends PacketNetwork implements SimContext {
  readonly queue = new EventQueue(INITIAL_EVENT_SLOTS);
  events = 0;
  readonly counters: TransportCounters = { retransmittedPackets: 0, timeouts: 0, cnps: 0, ecnEchoes: 0 };
  private readonly listeners: MessageListener[] = [];
  private readonly connListener: number[] = [];
  private readonly appActions: (() => void)[] = [];
  private readonly freeAppSlots: number[] = [];
  deliveredBytes = 0;
  offeredBytes = 0;
  /** Completion time of every message (offer to last byte delivered), for FCT percentiles. */
  readonly messageFctPs: number[] = [];
  private pendingWork = 0;
  private sampleIntervalPs: number;
  sampler: Sampler;

  constructor(topology: Topology, bufferConfig: BufferConfig, seed: number, sampleIntervalPs: number) {
    super(topology, bufferConfig, seed);
    this.sampleIntervalPs = sampleIntervalPs;
    this.sampler = new Sampler(topology.links.length, sampleIntervalPs);
  }

  /** Register a connection built by a transport factory; the listener hears its message ends. */
  addConnection(make: (id: number) => Connection, listener: MessageListener): Connection {
    const conn = make(this.connections.length);
    this.connections.push(conn);
    this.addRoutes(conn);
    let index = this.listeners.indexOf(listener);
    if (index < 0) index = this.listeners.push(listener) - 1;
    this.connListener.push(index);
    this.hostConns[conn.src]?.push(conn);
    return conn;
  }

  /** The application hands `bytes` more to the connection, as one message named `tag`. */
  offer(conn: Connection, bytes: number, tag: number): void {
    conn.onAppWrite(this.now);
    conn.appLimit += bytes;
    conn.messageEnds.push(conn.appLimit);
    conn.messageTags.push(tag);
    conn.messageOfferedPs.push(this.now);
    this.offeredBytes += bytes;
    if (conn.firstOfferPs < 0) conn.firstOfferPs = this.now;
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

  delivered(conn: Connection): void {
    const ends = conn.messageEnds;
    while (conn.messageHead < ends.length && conn.delivered >= ends[conn.messageHead]!) {
      const i = conn.messageHead++;
      const end = ends[i]!;
      const start = i === 0 ? 0 : ends[i - 1]!;
      this.deliveredBytes += end - start;
      this.messageFctPs.push(this.now - conn.messageOfferedPs[i]!);
      this.listeners[this.connListener[conn.id]!]?.onMessage(conn, conn.messageTags[i]!, this.now);
    }
  }

  private sample(): void {
    const s = this.sampler;
    const row = s.row();
    const n = this.linkFrom.length;
    const portBytes = this.portBytes;
    s.times[row] = this.now;
    s.delivered[row] = this.deliveredBytes;
    const offset = row * n;
    for (let link = 0; link < n; link++) {
      s.queues[offset + link] = portBytes[link]!;
      s.paused[offset + link] = this.pfc.pausedNow(link);
    }
    const c = s.connCount;
    for (let i = 0; i < c; i++) s.connDelivered[row * c + i] = this.connections[i]!.delivered;
  }

  private allDone(): boolean {
    for (const listener of this.listeners) if (!listener.done) return false;
    return true;
  }

  /** Run until every workload is done, nothing is left to do, or `maxTimePs`. */
  run(maxTimePs: number, onProgress?: (nowPs: number) => void): 'done' | 'stalled' | 'time-limit' {
    const q = this.queue;
    // Per-flow delivery is sampled for the first connections (enough for fairness studies).
    this.sampler = new Sampler(
      this.linkFrom.length,
      this.sampleIntervalPs,
      Math.min(this.connections.length, MAX_SAMPLED_CONNECTIONS),
    );
    this.schedule(0, EV_SAMPLE, 0);
    let checkEvery = 0;
    while (q.pop()) {
      const time = q.time;
      if (time > maxTimePs) {
        // Nothing happens between the last event and maxTime: the state there is the state now.
        this.now = maxTimePs;
        this.sample();
        return 'time-limit';
      }
      this.now = time;
      this.events++;
      const type = q.type;
      const a = q.payload;
      if (type !== EV_SAMPLE) this.pendingWork--;
      switch (type) {
        case EV_TX_DONE:
          this.onTxDone(a);
          break;
        case EV_ARRIVE:
          this.onArrive(a);
          break;
        case EV_HOST_WAKE:
          this.onHostWake(a, time);
          break;
        case EV_CONN_TIMER:
        case EV_CC_TIMER:
          this.connections[a]?.onTimer(type, time);
          break;
        case EV_PFC:
          this.pfc.onEvent(a);
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
      if (
        type === EV_APP ||
        type === EV_CONN_TIMER ||
        (type === EV_ARRIVE && this.deliveredBytes === this.offeredBytes)
      ) {
        if (this.allDone()) {
          this.sample();
          return 'done';
        }
      }
      if (onProgress && ++checkEvery === PROGRESS_EVERY_EVENTS) {
        checkEvery = 0;
        onProgress(time);
      }
    }
    return this.allDone() ? 'done' : 'stalled';
  }
}
