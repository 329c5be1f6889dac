/**
 * RoCE v2 reliable connection with DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015). The sender is rate based: each packet is spaced by its wire time at
 * the current rate RC. Reaction point on a CNP: RT <- RC, RC <- RC (1 - alpha/2),
 * alpha <- (1 - g) alpha + g; then a timer (T) and a byte counter (B) drive fast recovery
 * (RC <- (RT + RC)/2 for F rounds), additive increase (RT += R_AI) and hyper increase
 * (RT += i R_HAI). The notification point (receiver NIC) returns at most one CNP per 50 us per
 * flow for ECN-marked packets. Losses (only when the class is lossy or headroom is too small) are
 * repaired by go-back-N: the receiver NAKs the first gap and drops what follows, as RC NICs do.
 */
import { KIND_ACK, KIND_CNP, KIND_DATA, KIND_NAK } from '../net/packet-pool.js';
import { roceWireBytes } from '../net/wire.js';
import { EV_CC_TIMER } from '../event-kinds.js';
import { CLS_CONTROL, Connection, type ConnectionOptions } from './connection.js';
import { RetransmitTimer } from './retransmit-timer.js';

export interface DcqcnConfig {
  enabled: boolean;
  /** EWMA gain g (paper: 1/256). */
  g: number;
  /** Alpha-update and rate-increase timer period (paper: 55 us; both timers share it here). */
  timerPs: number;
  /** Byte counter B (paper: 10 MB). */
  byteCounterBytes: number;
  /** Fast-recovery rounds F (paper: 5). */
  fastRecoveryRounds: number;
  /** Additive increase step R_AI and hyper increase step R_HAI. */
  raiBps: number;
  rhaiBps: number;
  minRateBps: number;
  /** Minimum spacing of CNPs per flow at the notification point (paper: 50 us). */
  cnpIntervalPs: number;
}

export interface RoceConfig {
  mtuBytes: number;
  /** The receiver acknowledges every this many packets (ACK coalescing) and at each message end. */
  ackEvery: number;
  retransmitTimeoutPs: number;
  dcqcn: DcqcnConfig;
}

export interface RoceConnectionOptions extends ConnectionOptions {
  config: RoceConfig;
  /** Rate of the sender's first link: DCQCN starts there and never goes above it. */
  lineRateBps: number;
}

export class RoceConnection extends Connection {
  readonly transport = 'roce' as const;
  private sndUna = 0;
  private sndNxt = 0;
  private sndMax = 0;
  private nextSendPs = 0;
  /** DCQCN reaction point state. */
  rateBps: number;
  private targetBps: number;
  private alpha = 1;
  private timerRounds = 0;
  private byteRounds = 0;
  private bytesSinceRound = 0;
  private tickTime = -1;
  private lastTickPs = 0;
  private readonly retransmitTimer = new RetransmitTimer(this.ctx, this.id);
  // Receiver (notification point).
  private expected = 0;
  private sinceAck = 0;
  private nakSent = false;
  private lastCnpPs = -Infinity;

  private readonly config: RoceConfig;
  private readonly lineRateBps: number;

  constructor(o: RoceConnectionOptions) {
    super(o);
    this.config = o.config;
    this.lineRateBps = o.lineRateBps;
    this.rateBps = o.lineRateBps;
    this.targetBps = o.lineRateBps;
  }

  payloadRateBps(lineRateBps: number): number {
    return (lineRateBps * this.config.mtuBytes) / roceWireBytes(this.config.mtuBytes);
  }

  readiness(now: number): number {
    if (this.sndNxt >= this.appLimit) return Infinity;
    return this.nextSendPs <= now ? now : this.nextSendPs;
  }

  nextPacket(now: number): number {
    const seq = this.sndNxt;
    const len = Math.min(this.config.mtuBytes, this.appLimit - seq);
    const wire = roceWireBytes(len);
    if (seq < this.sndMax) {
      this.retransmittedPackets++;
      this.ctx.counters.retransmittedPackets++;
    }
    this.sndNxt = seq + len;
    if (this.sndNxt > this.sndMax) this.sndMax = this.sndNxt;
    this.nextSendPs = now + Math.ceil((wire * 8e12) / this.rateBps);
    const p = this.ctx.pool.alloc(this.id, KIND_DATA, this.cls, seq, len, wire, now);
    this.ctx.pool.setEcn(p, 1);
    if (this.firstSendPs < 0) this.firstSendPs = now;
    if (!this.retransmitTimer.armed) this.retransmitTimer.arm(now + this.config.retransmitTimeoutPs);
    const d = this.config.dcqcn;
    if (d.enabled && this.rateBps < this.lineRateBps) {
      this.bytesSinceRound += len;
      if (this.bytesSinceRound >= d.byteCounterBytes) {
        this.bytesSinceRound = 0;
        this.byteRounds++;
        this.increase();
      }
    }
    return p;
  }

  onTimer(type: number, timePs: number): void {
    if (type === EV_CC_TIMER) {
      this.onTick(timePs);
      return;
    }
    if (!this.retransmitTimer.expired(timePs)) return;
    if (this.sndUna >= this.sndMax) return;
    this.timeouts++;
    this.ctx.counters.timeouts++;
    this.sndNxt = this.sndUna;
    this.retransmitTimer.arm(timePs + this.config.retransmitTimeoutPs);
    this.ctx.kickHost(this.src);
  }

  private onTick(timePs: number): void {
    if (timePs !== this.tickTime) return;
    this.tickTime = -1;
    const d = this.config.dcqcn;
    this.alpha *= 1 - d.g;
    this.lastTickPs = timePs;
    this.timerRounds++;
    this.increase();
    if (this.rateBps < this.lineRateBps) this.scheduleTick(timePs + d.timerPs);
  }

  private scheduleTick(at: number): void {
    this.tickTime = at;
    this.ctx.schedule(at, EV_CC_TIMER, this.id);
  }

  private increase(): void {
    const d = this.config.dcqcn;
    const f = d.fastRecoveryRounds;
    const hi = Math.max(this.timerRounds, this.byteRounds);
    const lo = Math.min(this.timerRounds, this.byteRounds);
    if (hi >= f) {
      if (lo > f) this.targetBps += (lo - f) * d.rhaiBps;
      else this.targetBps += d.raiBps;
    }
    if (this.targetBps > this.lineRateBps) this.targetBps = this.lineRateBps;
    this.rateBps = Math.min(this.lineRateBps, (this.targetBps + this.rateBps) / 2);
  }

  private onCnp(now: number): void {
    const d = this.config.dcqcn;
    if (!d.enabled) return;
    if (this.tickTime < 0) {
      // The timer was idle at line rate: apply the alpha decays it would have made meanwhile.
      this.alpha *= (1 - d.g) ** Math.floor((now - this.lastTickPs) / d.timerPs);
    }
    this.targetBps = this.rateBps;
    this.rateBps = Math.max(d.minRateBps, this.rateBps * (1 - this.alpha / 2));
    this.alpha = (1 - d.g) * this.alpha + d.g;
    this.timerRounds = 0;
    this.byteRounds = 0;
    this.bytesSinceRound = 0;
    this.lastTickPs = now;
    this.scheduleTick(now + d.timerPs);
  }

  onControl(p: number): void {
    const pool = this.ctx.pool;
    const kind = pool.kind(p);
    const now = this.ctx.now;
    if (kind === KIND_CNP) {
      this.onCnp(now);
      return;
    }
    const psn = pool.seq(p);
    if (psn > this.sndUna) {
      this.sndUna = psn;
      if (this.sndUna >= this.sndMax) this.retransmitTimer.disarm();
      else this.retransmitTimer.arm(now + this.config.retransmitTimeoutPs);
    }
    if (kind === KIND_NAK && this.sndNxt > psn) {
      this.sndNxt = psn;
      this.ctx.kickHost(this.src);
    }
  }

  onData(p: number): void {
    const pool = this.ctx.pool;
    const ctx = this.ctx;
    const now = ctx.now;
    if (
      pool.ecn(p) === 2 &&
      now - this.lastCnpPs >= this.config.dcqcn.cnpIntervalPs &&
      this.config.dcqcn.enabled
    ) {
      this.lastCnpPs = now;
      ctx.counters.cnps++;
      ctx.sendControl(this, KIND_CNP, CLS_CONTROL, 0, 0, 0);
    }
    const seq = pool.seq(p);
    if (seq === this.expected) {
      this.expected += pool.payload(p);
      this.nakSent = false;
      this.delivered = this.expected;
      this.lastDeliveryPs = now;
      const atMessageEnd =
        this.messageHead < this.messageEnds.length && this.expected >= this.messageEnds[this.messageHead]!;
      if (++this.sinceAck >= this.config.ackEvery || atMessageEnd) {
        this.sinceAck = 0;
        ctx.sendControl(this, KIND_ACK, CLS_CONTROL, this.expected, 0, 0);
      }
      ctx.delivered(this);
    } else if (seq > this.expected) {
      if (!this.nakSent) {
        this.nakSent = true;
        ctx.sendControl(this, KIND_NAK, CLS_CONTROL, this.expected, 0, 0);
      }
    } else {
      ctx.sendControl(this, KIND_ACK, CLS_CONTROL, this.expected, 0, 0);
    }
  }
}
