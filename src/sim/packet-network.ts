/**
 * The packet-level network: output-queued switches with per-class FIFOs served in strict priority,
 * store-and-forward links, and host NICs that pull from their connections round-robin. Up to two
 * events per packet per hop (arrival at the next node, and end of serialisation when more packets
 * wait for the port). PFC (pause frames, pause state, storms, watchdog, deadlocks) is net/pfc.ts,
 * which this core calls; the event loop, the connections' messages and the sampling live in the
 * Simulator built on top of it.
 */
import { createRng, type Rng } from '../core/rng.js';
import { grownInt32 } from './engine/index.js';
import { EV_ARRIVE, EV_HOST_WAKE, EV_TX_DONE } from './event-kinds.js';
import { ADMIT_DROP, SwitchBuffers, type BufferConfig } from './net/buffers.js';
import { PacketPool } from './net/packet-pool.js';
import { PriorityFlowControl } from './net/pfc.js';
import { PortQueues } from './net/port-queues.js';
import { MIN_FRAME_WIRE_BYTES } from './net/wire.js';
import type { Topology } from './topo/types.js';
import { CLASS_COUNT, CLS_LOSSLESS, CLS_LOSSY, type Connection } from './transport/connection.js';

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
  /** Packets put on a link (one per packet per hop): htsim's events-per-packet-hop denominator. */
  packetHops = 0;
  private readonly ecnOn: boolean;
  /** Pause frames, pause state and time, storms, watchdog and deadlocks. */
  readonly pfc: PriorityFlowControl;
  /** The PFC's per-link flags, read on every transmission and lossless arrival (the same arrays). */
  private readonly paused: Uint8Array;
  private readonly stormed: Uint8Array;
  /** Per link, the probability that a packet is lost on it; null while no link is lossy. */
  private lossProbability: Float64Array | null = null;
  /** Packets lost on lossy links (also counted in `drops` and `dropsByLink`). */
  randomDrops = 0;
  /**
   * Every connection's two routes, end to end in one table, so that a switch forwards a packet
   * by its position in the table (pool.hop(p)) without touching the connection: where each
   * connection's data route and its route back begin.
   */
  private routeLinks = new Int32Array(1024);
  /** Beside each entry: its connection x 2, + 1 on the route back (what a host hands the packet to). */
  private routeOwner = new Int32Array(1024);
  private routeLinksUsed = 0;
  private forwardAt = new Int32Array(64);
  private reverseAt = new Int32Array(64);

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
    this.buffers = new SwitchBuffers(topology, bufferConfig, (ingress, on) =>
      this.pfc.sendFrame(ingress, on),
    );
    this.ecnOn = bufferConfig.ecn !== null;
    this.pfc = new PriorityFlowControl({
      network: this,
      topology,
      buffers: this.buffers,
      queues: this.queues,
      pool: this.pool,
      linkFrom: this.linkFrom,
      linkTo: this.linkTo,
      psPerByte: this.psPerByte,
      delayPs: this.delayPs,
      busyUntil: this.busyUntil,
      isHost: this.isHost,
      hostUplink: this.hostUplink,
      dropsByLink: this.dropsByLink,
    });
    this.paused = this.pfc.paused;
    this.stormed = this.pfc.stormed;
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

  abstract schedule(timePs: number, type: number, payload: number): void;

  /** Enters a new connection's routes in the route table (call once per connection, in id order). */
  protected addRoutes(conn: Connection): void {
    const need = this.routeLinksUsed + conn.forward.length + conn.reverse.length;
    if (need > this.routeLinks.length) {
      const size = Math.max(need, this.routeLinks.length * 2);
      this.routeLinks = grownInt32(this.routeLinks, size);
      this.routeOwner = grownInt32(this.routeOwner, size);
    }
    if (conn.id >= this.forwardAt.length) {
      const size = Math.max(conn.id + 1, this.forwardAt.length * 2);
      this.forwardAt = grownInt32(this.forwardAt, size);
      this.reverseAt = grownInt32(this.reverseAt, size);
    }
    const at = this.routeLinksUsed;
    this.forwardAt[conn.id] = at;
    this.routeLinks.set(conn.forward, at);
    this.routeOwner.fill(2 * conn.id, at, at + conn.forward.length);
    const back = at + conn.forward.length;
    this.reverseAt[conn.id] = back;
    this.routeLinks.set(conn.reverse, back);
    this.routeOwner.fill(2 * conn.id + 1, back, back + conn.reverse.length);
    this.routeLinksUsed = back + conn.reverse.length;
  }

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
    this.pool.setEcn(p, ecnEcho);
    this.pool.setHop(p, this.reverseAt[conn.id]!);
    const link = conn.reverse[0]!;
    this.queues.enqueue(link, cls, p);
    this.kick(link);
    return p;
  }

  kickHost(host: number): void {
    const link = this.hostUplink[host]!;
    if (link >= 0) this.kick(link);
  }

  /**
   * Something may be sent on `link`: start now if the port is free, else make sure an
   * end-of-transmission event will look again. A port that finishes with nothing queued gets no
   * such event, which saves one event per packet-hop on uncongested paths.
   */
  kick(link: number): void {
    if (this.txPending[link] === 1) return;
    const until = this.busyUntil[link]!;
    if (this.now >= until) {
      this.startTx(link);
    } else {
      this.lookAgainAtEnd(link);
    }
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
    const from = this.linkFrom[link]!;
    let p = -1;
    if (cls >= 0) {
      p = queues.dequeue(link, cls);
      if (this.isHost[from] === 0) {
        this.transmitFromSwitch(from, link, cls, p);
        return;
      }
    } else if (this.isHost[from] === 1) {
      p = this.pullFromHost(from, link);
    }
    if (p < 0) return;
    // A host port looks again at the end: it may have more to pull.
    this.transmit(link, p);
    this.lookAgainAtEnd(link);
  }

  /** Packet `p` leaves switch `node`'s queues for `link` and starts on the wire. */
  private transmitFromSwitch(node: number, link: number, cls: number, p: number): void {
    this.buffers.release(node, cls, this.pool.ingress(p), this.pool.wire(p));
    // ECN is marked at dequeue, on the queue the packet leaves behind (as DCQCN's CP and
    // ns-3's HPCC switch do): the congestion signal is not delayed by the queue itself.
    if (this.ecnOn && this.pool.ecn(p) === 1) this.markEcn(p, link * CLASS_COUNT + cls);
    this.transmit(link, p);
    // Look again at the end only if something is waiting.
    if (this.queues.hasWaiting(link)) this.lookAgainAtEnd(link);
  }

  /** An end-of-transmission event will pick the port's next packet when the one on the wire is out. */
  private lookAgainAtEnd(link: number): void {
    this.txPending[link] = 1;
    this.schedule(this.busyUntil[link]!, EV_TX_DONE, link);
  }

  /** Serialises `p` on `link` from now and schedules its arrival at the far end. */
  private transmit(link: number, p: number): void {
    const end = this.now + Math.ceil(this.pool.wire(p) * this.psPerByte[link]!);
    this.packetHops++;
    this.busyUntil[link] = end;
    // htb (sch_htb.c): a class with tokens dequeues the packet now and is charged its length after.
    const departs = this.chargedAfter[link] === 1 ? this.now : end;
    this.schedule(departs + this.delayPs[link]!, EV_ARRIVE, p);
  }

  private markEcn(p: number, q: number): void {
    const probability = this.buffers.markProbability(this.queues.classBytes[q]!);
    if (probability > 0 && (probability >= 1 || this.rng.next() < probability)) {
      this.pool.setEcn(p, 2);
      this.ecnMarks++;
    }
  }

  private pullFromHost(host: number, link: number): number {
    const conns = this.hostConns[host]!;
    const n = conns.length;
    if (n === 0) return -1;
    const now = this.now;
    const start = this.rr[host]!;
    const paused = this.paused[link] === 1;
    let wake = Infinity;
    for (let i = 0; i < n; i++) {
      const index = (start + i) % n;
      const conn = conns[index]!;
      if (paused && conn.cls === CLS_LOSSLESS) continue;
      const ready = conn.readiness(now);
      if (ready <= now) {
        this.rr[host] = (index + 1) % n;
        const p = conn.nextPacket(now);
        this.pool.setHop(p, this.forwardAt[conn.id]!);
        return p;
      }
      if (ready < wake) wake = ready;
    }
    if (wake < this.wakeAt[host]!) {
      this.wakeAt[host] = wake;
      this.schedule(wake, EV_HOST_WAKE, host);
    }
    return -1;
  }

  /** EV_ARRIVE: a packet reached the end of its current hop. */
  protected onArrive(p: number): void {
    const pool = this.pool;
    const hop = pool.hop(p);
    const link = this.routeLinks[hop]!;
    const lossy = this.lossProbability;
    if (lossy !== null) {
      const loss = lossy[link]!;
      if (loss > 0 && this.rng.next() < loss) {
        this.drops++;
        this.randomDrops++;
        this.dropsByLink[link] = this.dropsByLink[link]! + 1;
        pool.free(p);
        return;
      }
    }
    const node = this.linkTo[link]!;
    if (this.isHost[node] === 1) {
      const owner = this.routeOwner[hop]!;
      const conn = this.connections[owner >> 1]!;
      if ((owner & 1) === 0) conn.onData(p);
      else conn.onControl(p);
      pool.free(p);
      return;
    }
    const out = this.routeLinks[hop + 1]!;
    pool.setHop(p, hop + 1);
    const cls = pool.cls(p);
    const wire = pool.wire(p);
    const buffers = this.buffers;
    if (cls === CLS_LOSSLESS && this.stormed[out] === 1) {
      // A stormed queue takes nothing while the watchdog holds it (SONiC/Junos "drop" action).
      this.drops++;
      this.pfc.watchdogDrops++;
      this.dropsByLink[out] = this.dropsByLink[out]! + 1;
      pool.free(p);
      return;
    }
    let admitted: number;
    if (cls === CLS_LOSSLESS) {
      admitted = buffers.admitLossless(node, link, wire);
      pool.setIngress(p, link);
    } else if (cls === CLS_LOSSY) {
      admitted = buffers.admitLossy(node, this.queues.classBytes[out * CLASS_COUNT + cls]!, wire);
    } else {
      admitted = buffers.admitOther(node, wire);
    }
    if (admitted === ADMIT_DROP) {
      this.drops++;
      if (cls === CLS_LOSSLESS) this.losslessDrops++;
      this.dropsByLink[out] = this.dropsByLink[out]! + 1;
      pool.free(p);
      return;
    }
    const queues = this.queues;
    if (
      this.txPending[out] === 0 &&
      this.now >= this.busyUntil[out]! &&
      !queues.hasWaiting(out) &&
      (cls !== CLS_LOSSLESS || this.paused[out] === 0)
    ) {
      // An idle port with nothing queued: what enqueue and startTx would do, without the queue.
      queues.passThrough(out, wire);
      this.transmitFromSwitch(node, out, cls, p);
      return;
    }
    queues.enqueue(out, cls, p);
    this.kick(out);
  }
}
