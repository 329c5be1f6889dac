/**
 * A TCP connection's sender (its receiver is tcp-receiver.ts): slow start and congestion
 * avoidance (Reno, CUBIC or DCTCP), SACK loss recovery (RFC 6675) or fast retransmit and NewReno
 * recovery (RFC 5681, RFC 6582), and a retransmission timer computed as Linux does
 * (net/ipv4/tcp_input.c tcp_rtt_estimator/tcp_set_rto: RTO = srtt + max(4 rttvar, rto_min),
 * rto_min 200 ms by default, doubled on each timeout). After a timeout the sender forgets the
 * SACK scoreboard and goes back to snd_una with a one-segment window. Timestamps (on by default
 * in Linux) give an RTT sample on every ACK. Connections start established: the handshake gave
 * one RTT sample of the idle path, as in the incast experiments where connections are persistent.
 */
import { KIND_DATA } from '../net/packet-pool.js';
import { tcpWireBytes } from '../net/wire.js';
import { Connection, EV_CC_TIMER, type SimContext } from './connection.js';
import { RetransmitTimer } from './retransmit-timer.js';
import { SACK_BLOCKS, SackScoreboard } from './sack.js';
import { TcpReceiver } from './tcp-receiver.js';
import { DCTCP_G, growWindow, lossThreshold, type CcState, type CongestionControl } from './tcp-cc.js';

export interface TcpConfig {
  mssBytes: number;
  initialCwndSegments: number;
  minRtoPs: number;
  maxRtoPs: number;
  cc: CongestionControl;
  /**
   * Delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): acknowledge every `ackEvery` in-order segments,
   * at once on anything out of order or at the end of a message (the segment that carries PSH),
   * and at the latest after `delayedAckTimeoutPs` (Linux: 40 ms minimum). 1 = ACK every segment.
   */
  ackEvery: number;
  delayedAckTimeoutPs: number;
  /** Selective acknowledgements (RFC 2018) with RFC 6675 recovery; Linux's default (tcp_sack=1). */
  sack: boolean;
}

/** RFC 6675 DupThresh: three segments SACKed above a hole make it lost. */
const DUP_THRESH = 3;

export class TcpConnection extends Connection {
  readonly transport = 'tcp' as const;
  private sndUna = 0;
  private sndNxt = 0;
  private sndMax = 0;
  private readonly s: CcState;
  private dupAcks = 0;
  private inRecovery = false;
  private recover = 0;
  private retransmitNext = false;
  private readonly board = new SackScoreboard();
  /** RFC 6675 HighRxt: end of the highest retransmission in this recovery. */
  private highRxt = 0;
  private srtt: number;
  private rttvar: number;
  private rto: number;
  private readonly retransmitTimer = new RetransmitTimer(this.ctx, this.id);
  // DCTCP per-window observation.
  private windowEnd = 0;
  private windowAcked = 0;
  private windowMarked = 0;
  private cwrEnd = 0;
  private readonly receiver: TcpReceiver;

  constructor(
    id: number,
    src: number,
    dst: number,
    cls: number,
    forward: Int32Array,
    reverse: Int32Array,
    ctx: SimContext,
    private readonly config: TcpConfig,
    baseRttPs: number,
  ) {
    super(id, src, dst, cls, forward, reverse, ctx);
    const mss = config.mssBytes;
    this.s = { cwnd: config.initialCwndSegments * mss, ssthresh: Infinity, mss, wMax: 0, epochStartPs: -1, cubicK: 0, dctcpAlpha: 1 };
    this.srtt = baseRttPs;
    this.rttvar = baseRttPs / 2;
    this.rto = this.computeRto();
    this.receiver = new TcpReceiver(this, ctx, config);
  }

  get ecnCapable(): boolean {
    return this.config.cc === 'dctcp';
  }

  get cwndBytes(): number {
    return this.s.cwnd;
  }

  payloadRateBps(lineRateBps: number): number {
    return (lineRateBps * this.config.mssBytes) / tcpWireBytes(this.config.mssBytes);
  }

  private computeRto(): number {
    return Math.min(this.config.maxRtoPs, this.srtt + Math.max(4 * this.rttvar, this.config.minRtoPs));
  }

  readiness(now: number): number {
    if (this.inRecovery && this.config.sack) return this.sackNextSeq() >= 0 && this.pipe() + this.config.mssBytes <= this.s.cwnd + 1e-6 ? now : Infinity;
    if (this.retransmitNext) return now;
    if (this.sndNxt >= this.appLimit) return Infinity;
    const flight = this.sndNxt - this.sndUna;
    // Whole segments only, as Linux counts packets in flight against cwnd.
    return flight + this.config.mssBytes <= this.s.cwnd + 1e-6 || flight === 0 ? now : Infinity;
  }

  nextPacket(now: number): number {
    const mss = this.config.mssBytes;
    let seq: number;
    let len: number;
    const sackSeq = this.inRecovery && this.config.sack ? this.sackNextSeq() : -1;
    if (sackSeq >= 0 && sackSeq < this.sndNxt) {
      // Retransmit the first lost hole not yet retransmitted (RFC 6675 NextSeg rule 1).
      seq = sackSeq;
      len = Math.min(mss, this.board.holeEnd - seq);
      this.highRxt = seq + len;
      this.countRetransmit();
    } else if (this.retransmitNext) {
      this.retransmitNext = false;
      seq = this.sndUna;
      len = Math.min(mss, this.sndMax - this.sndUna);
      this.countRetransmit();
    } else {
      seq = this.sndNxt;
      len = Math.min(mss, this.appLimit - seq);
      if (seq < this.sndMax) this.countRetransmit();
      this.sndNxt = seq + len;
      if (this.sndNxt > this.sndMax) this.sndMax = this.sndNxt;
    }
    const p = this.ctx.pool.alloc(this.id, KIND_DATA, this.cls, seq, len, tcpWireBytes(len), now);
    if (this.ecnCapable) this.ctx.pool.ecn[p] = 1;
    if (this.firstSendPs < 0) this.firstSendPs = now;
    if (!this.retransmitTimer.armed) this.retransmitTimer.arm(now + this.rto);
    return p;
  }

  /**
   * Holes starting below this are lost: DupThresh segments SACKed above them, or, after DupThresh
   * duplicate ACKs, the first segment (RFC 6675 5(4): the first retransmission).
   */
  private lostLimit(): number {
    const bySack = this.board.lostBelow(this.sndUna, DUP_THRESH * this.config.mssBytes);
    return this.dupAcks >= DUP_THRESH ? Math.max(bySack, this.sndUna + this.config.mssBytes) : bySack;
  }

  /** RFC 6675 NextSeg: a lost hole to retransmit (its end in board.holeEnd), else new data; -1 when neither. */
  private sackNextSeq(): number {
    const hole = this.board.nextHole(Math.max(this.highRxt, this.sndUna), this.sndMax);
    if (hole >= 0 && hole < this.lostLimit()) return hole;
    return this.sndNxt < this.appLimit ? this.sndNxt : -1;
  }

  /** RFC 6675 SetPipe: outstanding bytes neither SACKed nor lost-and-not-yet-retransmitted. */
  private pipe(): number {
    const from = Math.max(this.highRxt, this.sndUna);
    const limit = Math.min(this.lostLimit(), this.sndMax);
    const lostWaiting = limit > from ? limit - from - this.board.sackedBetween(from, limit) : 0;
    return this.sndMax - this.sndUna - this.board.bytes - lostWaiting;
  }

  private countRetransmit(): void {
    this.retransmittedPackets++;
    this.ctx.counters.retransmittedPackets++;
  }

  onTimer(type: number, timePs: number): void {
    if (type === EV_CC_TIMER) {
      this.receiver.onDelayedAckTimer(timePs);
      return;
    }
    if (!this.retransmitTimer.expired(timePs)) return;
    if (this.sndUna >= this.sndMax) return;
    this.timeouts++;
    this.ctx.counters.timeouts++;
    this.s.ssthresh = lossThreshold(this.config.cc, this.s, this.sndMax - this.sndUna);
    this.s.cwnd = this.config.mssBytes;
    this.inRecovery = false;
    this.dupAcks = 0;
    this.recover = this.sndMax;
    this.retransmitNext = false;
    this.board.clear();
    this.highRxt = 0;
    this.sndNxt = this.sndUna;
    this.rto = Math.min(this.rto * 2, this.config.maxRtoPs);
    this.retransmitTimer.arm(timePs + this.rto);
    this.ctx.kickHost(this.src);
  }

  onData(p: number): void {
    this.receiver.onSegment(p);
  }

  onControl(p: number): void {
    const pool = this.ctx.pool;
    const ack = pool.seq[p] as number;
    const now = this.ctx.now;
    const mss = this.config.mssBytes;
    if (this.config.cc === 'dctcp') this.observeEcn(ack, pool.ecn[p] === 1, now);
    const sack = this.config.sack;
    if (ack > this.sndUna) {
      const acked = ack - this.sndUna;
      this.sndUna = ack;
      if (this.sndNxt < ack) this.sndNxt = ack;
      if (sack) this.board.prune(ack);
      this.updateRtt(now - (pool.ts[p] as number));
      if (this.inRecovery) {
        if (ack >= this.recover) {
          this.inRecovery = false;
          this.s.cwnd = this.s.ssthresh;
          this.dupAcks = 0;
        } else if (sack) {
          this.dupAcks = 0;
        } else {
          // NewReno partial ACK (RFC 6582 3.2): retransmit the next hole, deflate by what was acked.
          this.retransmitNext = true;
          this.s.cwnd = Math.max(this.s.cwnd - acked + mss, mss);
        }
      } else {
        this.dupAcks = 0;
        growWindow(this.config.cc, this.s, acked, now, this.srtt);
      }
      if (this.sndUna >= this.sndMax) this.retransmitTimer.disarm();
      else this.retransmitTimer.arm(now + this.rto);
    } else if (ack === this.sndUna && this.sndMax > this.sndUna && sack) {
      this.dupAcks++;
    } else if (ack === this.sndUna && this.sndMax > this.sndUna) {
      this.dupAcks++;
      if (!this.inRecovery && this.dupAcks === 3 && ack >= this.recover) {
        this.s.ssthresh = lossThreshold(this.config.cc, this.s, this.sndMax - this.sndUna);
        this.s.cwnd = this.s.ssthresh + 3 * mss;
        this.inRecovery = true;
        this.recover = this.sndMax;
        this.retransmitNext = true;
      } else if (this.inRecovery) {
        this.s.cwnd += mss;
      }
    }
    if (sack) this.onSackBlocks(p);
    this.ctx.kickHost(this.src);
  }

  /** Merge the ACK's SACK blocks; enter RFC 6675 recovery on DupThresh duplicates or a lost hole. */
  private onSackBlocks(p: number): void {
    const blocks = this.ctx.pool.sack;
    for (let k = 0; k < SACK_BLOCKS; k++) {
      const start = blocks[6 * p + 2 * k] as number;
      const end = blocks[6 * p + 2 * k + 1] as number;
      if (end > start) this.board.add(start, end, this.sndUna);
    }
    const mss = this.config.mssBytes;
    if (
      !this.inRecovery &&
      this.sndMax > this.sndUna &&
      this.sndUna >= this.recover &&
      (this.dupAcks >= DUP_THRESH || this.board.bytes >= DUP_THRESH * mss)
    ) {
      this.s.ssthresh = lossThreshold(this.config.cc, this.s, this.sndMax - this.sndUna);
      this.s.cwnd = this.s.ssthresh;
      this.inRecovery = true;
      this.recover = this.sndMax;
      this.highRxt = this.sndUna;
    }
  }

  private updateRtt(sample: number): void {
    if (sample <= 0) return;
    this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - sample);
    this.srtt = 0.875 * this.srtt + 0.125 * sample;
    this.rto = this.computeRto();
  }

  /** DCTCP: fraction of marked bytes per window; at most one cut per window (tcp_dctcp.c). */
  private observeEcn(ack: number, ece: boolean, now: number): void {
    const acked = Math.max(0, ack - this.sndUna);
    this.windowAcked += acked;
    if (ece) {
      this.windowMarked += Math.max(acked, 1);
      this.ctx.counters.ecnEchoes++;
      if (ack >= this.cwrEnd && !this.inRecovery) {
        this.s.cwnd = Math.max(this.s.cwnd * (1 - this.s.dctcpAlpha / 2), 2 * this.config.mssBytes);
        this.s.ssthresh = this.s.cwnd;
        this.cwrEnd = this.sndMax;
      }
    }
    if (ack >= this.windowEnd) {
      const fraction = this.windowAcked > 0 ? Math.min(1, this.windowMarked / this.windowAcked) : 0;
      this.s.dctcpAlpha = (1 - DCTCP_G) * this.s.dctcpAlpha + DCTCP_G * fraction;
      this.windowAcked = 0;
      this.windowMarked = 0;
      this.windowEnd = this.sndMax;
    }
    void now;
  }
}
