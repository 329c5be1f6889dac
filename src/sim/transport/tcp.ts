/**
 * A TCP connection's sender (its receiver is tcp-receiver.ts): slow start and congestion control
 * through one interface (cc/: Reno, CUBIC, DCTCP, BBR), SACK loss recovery (RFC 6675) or fast
 * retransmit and NewReno recovery (RFC 5681, RFC 6582), and a retransmission timer computed as
 * Linux does (net/ipv4/tcp_input.c tcp_rtt_estimator/tcp_set_rto: RTO = srtt + max(4 rttvar,
 * rto_min), rto_min 200 ms by default, doubled on each timeout up to rto_max). After a timeout
 * this sender forgets the SACK scoreboard and goes back to snd_una with a one-segment window.
 * Timestamps (on by default in Linux) give an RTT sample on every ACK. Connections start
 * established: the handshake gave one RTT sample of the idle path, as in the incast experiments
 * where connections are persistent. RACK-TLP (RFC 8985) lives in tcp-rack.ts, a subclass.
 */
import { KIND_DATA } from '../net/packet-pool.js';
import { tcpWireBytes } from '../net/wire.js';
import {
  createCongestionControl,
  type CcName,
  type CcWindow,
  type CongestionControl,
  type RateSample,
} from './cc/index.js';
import { EV_CC_TIMER } from '../event-kinds.js';
import { Connection, type ConnectionOptions } from './connection.js';
import { RetransmitTimer } from './retransmit-timer.js';
import { SACK_BLOCKS, SackScoreboard } from './sack.js';
import { SentSegments } from './sent-segments.js';
import { TcpReceiver } from './tcp-receiver.js';

export interface TcpConfig {
  mssBytes: number;
  initialCwndSegments: number;
  minRtoPs: number;
  maxRtoPs: number;
  cc: CcName;
  /**
   * Delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): acknowledge every `ackEvery` in-order segments,
   * at once on anything out of order or at the end of a message (the segment that carries PSH),
   * and at the latest after `delayedAckTimeoutPs` (Linux: 40 ms minimum). 1 = ACK every segment.
   */
  ackEvery: number;
  delayedAckTimeoutPs: number;
  /** Linux quick-ACK mode at the start: the first `quickAcks` segments are acknowledged at once (TCP_MAX_QUICKACKS 16). */
  quickAcks: number;
  /** Selective acknowledgements (RFC 2018) with RFC 6675 recovery; Linux's default (tcp_sack=1). */
  sack: boolean;
  /** RACK-TLP (RFC 8985, tcp-rack.ts) instead of DupThresh recovery; Linux's default (tcp_recovery=1, tcp_early_retrans=3). */
  rack: boolean;
  /**
   * Segments per packet of new data, up to what cwnd allows: TSO/GSO super-packets as a veth testbed
   * carries them (one buffer admission, one ACK-able unit; Linux tcp_tso_autosize: up to 64 KB). 1 = none.
   */
  tsoSegments: number;
  /**
   * Linux net.ipv4.tcp_slow_start_after_idle (default 1; RFC 2861, RFC 7661): a sender that has sent
   * nothing for longer than its RTO and has nothing outstanding restarts from the initial window,
   * halving once more for every further RTO idle (tcp_output.c tcp_cwnd_restart, checked in tcp.c
   * skb_entail as the application writes). Congestion controls with their own cong_control (BBR) skip it.
   */
  slowStartAfterIdle: boolean;
}

export interface TcpConnectionOptions extends ConnectionOptions {
  config: TcpConfig;
  /** Round trip of the idle path (the handshake's RTT sample), ps. */
  baseRttPs: number;
  /** Seeds the connection's own random draws (BBR's PROBE_BW phase); the run's seed mixed with the id. */
  randomSeed: number;
}

/** RFC 6675 DupThresh: three segments SACKed above a hole make it lost (RFC 5681: three duplicate ACKs). */
const DUP_THRESH = 3;
/** RFC 6298 (2.3) K = 4: RTO = SRTT + max(K x RTTVAR, rto_min) (Linux tcp_set_rto). */
const RTO_RTTVAR_K = 4;
/** RFC 6298 (2.3) alpha = 1/8 and beta = 1/4, the gains of SRTT and RTTVAR (Linux tcp_rtt_estimator). */
const SRTT_GAIN = 1 / 8;
const RTTVAR_GAIN = 1 / 4;
/**
 * Slack when packets are counted against cwnd: cwnd grows by fractions of a byte (mss x mss / cwnd
 * per ACK in congestion avoidance), so a window of n whole segments can fall a rounding error short
 * of n x mss. Chosen: far below a byte, far above double rounding.
 */
export const CWND_SLACK_BYTES = 1e-6;
/** The sender's state as Linux names it (icsk_ca_state): Open, Recovery, Loss (after a timeout). */
export const CA_OPEN = 0;
export const CA_RECOVERY = 1;
export const CA_LOSS = 2;

export class TcpConnection extends Connection {
  readonly transport = 'tcp' as const;
  protected sndUna = 0;
  protected sndNxt = 0;
  protected sndMax = 0;
  protected readonly s: CcWindow;
  readonly cc: CongestionControl;
  private dupAcks = 0;
  protected inRecovery = false;
  /** Set by a timeout until snd_una passes `recover` (only reported to the congestion control). */
  private afterTimeout = false;
  protected recover = 0;
  private retransmitNext = false;
  protected readonly board = new SackScoreboard();
  /** RFC 6675 HighRxt: end of the highest retransmission in this recovery. */
  private highRxt = 0;
  protected srtt: number;
  private rttvar: number;
  protected rto: number;
  /** Lowest RTT sample (Linux tcp_min_rtt; the handshake's to begin with). */
  protected minRtt: number;
  protected readonly retransmitTimer = new RetransmitTimer(this.ctx, this.id);
  protected readonly receiver: TcpReceiver;
  /** Per-segment state: only for RACK-TLP and for congestion controls that need rate samples (BBR). */
  protected readonly segs: SentSegments | null;
  protected readonly rs: RateSample;
  /** Earliest time the pacer lets the next packet go (0: unpaced). */
  protected nextSendPs = 0;
  /** This ACK's RTT sample (-1 none) and the bytes it got marked lost, for the rate sample. */
  protected lastRttSample = -1;
  protected newlyLostBytes = 0;
  /**
   * Linux's record of how much of cwnd the sender used (include/linux/tcp.h tcp_sock): whether the
   * last transmit attempt was held back by cwnd, the most bytes outstanding in the current window
   * (max_packets_out) and that window's right edge (cwnd_usage_seq); kept by cwndValidate.
   */
  private cwndLimitedFlag = false;
  private maxBytesOut = 0;
  private cwndUsageSeq = 0;
  /** Linux icsk_retransmits: timeouts since snd_una last advanced. */
  protected backoffs = 0;
  protected readonly config: TcpConfig;
  /** Linux tp->lsndtime: when the last data packet (new or resent) left, -1 before any. */
  private lastDataSentPs = -1;
  /** Restarts after idle (tcp_cwnd_restart). */
  cwndRestarts = 0;

  constructor(o: TcpConnectionOptions) {
    super(o);
    const config = o.config;
    this.config = config;
    const mss = config.mssBytes;
    this.s = { cwnd: config.initialCwndSegments * mss, ssthresh: Infinity, mss };
    this.cc = createCongestionControl(config.cc, this.s, { initialRttPs: o.baseRttPs, seed: o.randomSeed });
    this.srtt = o.baseRttPs;
    this.rttvar = o.baseRttPs / 2;
    this.minRtt = o.baseRttPs;
    this.rto = this.computeRto();
    this.receiver = new TcpReceiver(this, o.ctx, { ...config, dsack: config.rack });
    this.segs = config.rack || this.cc.controlsWindow ? new SentSegments() : null;
    this.rs = {
      nowPs: 0,
      ackedBytes: 0,
      deliveredBytes: -1,
      intervalPs: -1,
      priorDelivered: 0,
      isAppLimited: false,
      lostBytes: 0,
      rttPs: -1,
      inflightBytes: 0,
      totalDelivered: 0,
      caState: CA_OPEN,
      mss,
    };
  }

  get ecnCapable(): boolean {
    return this.cc.ecnCapable;
  }

  get cwndBytes(): number {
    return this.s.cwnd;
  }

  /** CA_OPEN, CA_RECOVERY or CA_LOSS (Linux icsk_ca_state). */
  get lossState(): number {
    return this.inRecovery ? CA_RECOVERY : this.afterTimeout ? CA_LOSS : CA_OPEN;
  }

  payloadRateBps(lineRateBps: number): number {
    return (lineRateBps * this.config.mssBytes) / tcpWireBytes(this.config.mssBytes);
  }

  private computeRto(): number {
    return Math.min(
      this.config.maxRtoPs,
      this.srtt + Math.max(RTO_RTTVAR_K * this.rttvar, this.config.minRtoPs),
    );
  }

  readiness(now: number): number {
    const ready = this.windowReadiness(now);
    return ready <= now && this.nextSendPs > now ? this.nextSendPs : ready;
  }

  private windowReadiness(now: number): number {
    if (this.inRecovery && this.config.sack)
      return this.sackNextSeq() >= 0 && this.pipe() + this.config.mssBytes <= this.s.cwnd + CWND_SLACK_BYTES
        ? now
        : Infinity;
    if (this.retransmitNext) return now;
    const flight = this.sndNxt - this.sndUna;
    if (this.sndNxt >= this.appLimit) {
      if (this.segs !== null && this.segs.appLimited === 0 && flight < this.s.cwnd)
        this.segs.markAppLimited(flight);
      return Infinity;
    }
    // Whole segments only, as Linux counts packets in flight against cwnd.
    return flight + this.config.mssBytes <= this.s.cwnd + CWND_SLACK_BYTES || flight === 0 ? now : Infinity;
  }

  nextPacket(now: number): number {
    this.txStart(now);
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
      len = Math.min(this.batch(this.sndNxt - this.sndUna), this.appLimit - seq);
      if (seq < this.sndMax) this.countRetransmit();
      this.sndNxt = seq + len;
      if (this.sndNxt > this.sndMax) this.sndMax = this.sndNxt;
    }
    if (this.segs !== null) this.recordSend(seq, seq + len, now);
    const p = this.emit(seq, len, now);
    this.cwndValidate();
    return p;
  }

  /**
   * tcp.c tcp_slow_start_after_idle_check, as the application writes: idle longer than the RTO with
   * nothing outstanding (and no cong_control of its own) restarts cwnd (tcp_output.c tcp_cwnd_restart):
   * ssthresh at least 3/4 of cwnd (tcp_current_ssthresh), cwnd halved for every RTO idle beyond the
   * first, never below min(initial window, cwnd).
   */
  override onAppWrite(now: number): void {
    if (!this.config.slowStartAfterIdle || this.cc.controlsWindow || this.lastDataSentPs < 0) return;
    if (this.sndUna < this.sndMax) return;
    let delta = now - this.lastDataSentPs;
    if (delta <= this.rto) return;
    const mss = this.config.mssBytes;
    let cwnd = Math.floor(this.s.cwnd / mss + CWND_SLACK_BYTES);
    this.s.ssthresh = Math.max(this.s.ssthresh, mss * ((cwnd >> 1) + (cwnd >> 2)));
    const restart = Math.min(this.config.initialCwndSegments, cwnd);
    while ((delta -= this.rto) > 0 && cwnd > restart) cwnd >>= 1;
    this.s.cwnd = Math.max(cwnd, restart) * mss;
    this.cwndRestarts++;
  }

  /** tcp_output.c tcp_event_data_sent: a data packet leaving with nothing in flight is CA_EVENT_TX_START. */
  protected txStart(now: number): void {
    if (this.inflight() === 0)
      this.cc.onTxStart(this.s, now, this.segs !== null && this.segs.appLimited !== 0);
  }

  /** Keep the per-segment state of a send: new data, or a retransmission of what was sent before. */
  protected recordSend(start: number, end: number, now: number): void {
    const segs = this.segs!;
    const known = segs.count > 0 ? segs.end[segs.at(segs.count - 1)]! : this.sndUna;
    if (start < known) segs.retransmit(start, Math.min(end, known), now);
    if (end > known) segs.push(Math.max(start, known), end, now);
  }

  /** Bytes of new data one packet may carry: one MSS, or with TSO as many whole segments as cwnd leaves room for. */
  protected batch(inflight: number): number {
    const mss = this.config.mssBytes;
    const tso = this.config.tsoSegments;
    if (tso <= 1) return mss;
    return mss * Math.max(1, Math.min(tso, Math.floor((this.s.cwnd + CWND_SLACK_BYTES - inflight) / mss)));
  }

  /** Build the data packet [seq, seq + len), start the RTO if it is idle, and advance the pacer. */
  protected emit(seq: number, len: number, now: number): number {
    const mss = this.config.mssBytes;
    // A TSO packet takes the wire time of its segments, each with its own headers.
    const wire =
      len <= mss
        ? tcpWireBytes(len)
        : tcpWireBytes(len) + (Math.ceil(len / mss) - 1) * (tcpWireBytes(mss) - mss);
    const p = this.ctx.pool.alloc(this.id, KIND_DATA, this.cls, seq, len, wire, now);
    if (this.cc.ecnCapable) this.ctx.pool.setEcn(p, 1);
    if (this.firstSendPs < 0) this.firstSendPs = now;
    this.lastDataSentPs = now;
    if (!this.retransmitTimer.armed) this.retransmitTimer.arm(now + this.rto);
    const rate = this.cc.pacingBytesPerPs;
    // Linux internal pacing (tcp_output.c tcp_update_skb_after_send): the next send waits len / rate.
    if (rate !== Infinity) this.nextSendPs = Math.max(this.nextSendPs, now) + Math.ceil(len / rate);
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

  /**
   * net/ipv4/tcp_output.c tcp_cwnd_validate, called after each transmission as tcp_write_xmit
   * calls it: remember for the current window whether cwnd held the sender back, else the most
   * bytes it had outstanding (packets_out: everything sent and not cumulatively acknowledged).
   */
  protected cwndValidate(): void {
    const mss = this.config.mssBytes;
    // tcp_write_xmit: is_cwnd_limited |= tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp), in whole segments.
    const cwndLimited = this.inflight() + mss > this.s.cwnd + CWND_SLACK_BYTES;
    const bytesOut = this.sndMax - this.sndUna;
    if (
      this.sndUna >= this.cwndUsageSeq ||
      cwndLimited ||
      (!this.cwndLimitedFlag && bytesOut > this.maxBytesOut)
    ) {
      this.cwndLimitedFlag = cwndLimited;
      this.maxBytesOut = bytesOut;
      this.cwndUsageSeq = this.sndNxt;
    }
  }

  /**
   * include/net/tcp.h tcp_is_cwnd_limited, which Linux's cong_avoid hooks (tcp_reno_cong_avoid,
   * cubictcp_cong_avoid; DCTCP uses Reno's) check first: cwnd grows only while it is the limit,
   * or in slow start up to twice the most bytes outstanding in the window.
   */
  protected isCwndLimited(): boolean {
    if (this.cwndLimitedFlag) return true;
    if (this.s.cwnd < this.s.ssthresh) return this.s.cwnd < 2 * this.maxBytesOut;
    return false;
  }

  /**
   * net/ipv4/tcp_input.c tcp_enter_loss: a timeout sets ssthresh only if the sender was Open, the
   * recovery point was reached, or it is in Loss with snd_una advanced since the last timeout
   * (icsk_retransmits 0); a timeout in Recovery keeps the ssthresh the recovery set.
   */
  protected timeoutSetsSsthresh(caState: number): boolean {
    return caState === CA_OPEN || this.sndUna >= this.recover || (caState === CA_LOSS && this.backoffs === 0);
  }

  protected countRetransmit(): void {
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
    if (this.timeoutSetsSsthresh(this.lossState)) this.s.ssthresh = this.cc.ssthresh(this.s);
    this.backoffs++;
    this.cc.onTimeout(this.s);
    this.s.cwnd = this.config.mssBytes;
    this.inRecovery = false;
    this.afterTimeout = true;
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
    const ack = pool.seq(p);
    const now = this.ctx.now;
    const mss = this.config.mssBytes;
    const cc = this.cc;
    const owns = cc.controlsWindow;
    if (cc.ecnCapable) {
      const ece = pool.ecn(p) === 1;
      if (ece) this.ctx.counters.ecnEchoes++;
      cc.inAckEvent(this.s, ack, this.sndUna, this.sndMax, ece, this.inRecovery);
    }
    const segs = this.segs;
    if (segs !== null) segs.beginAck();
    const sack = this.config.sack;
    if (ack > this.sndUna) {
      const acked = ack - this.sndUna;
      this.sndUna = ack;
      this.backoffs = 0;
      if (this.sndNxt < ack) this.sndNxt = ack;
      if (sack) this.board.prune(ack);
      if (segs !== null) segs.ackTo(ack, noop);
      this.updateRtt(now - pool.ts(p));
      if (ack >= this.recover) this.afterTimeout = false;
      if (this.inRecovery) {
        if (ack >= this.recover) {
          this.inRecovery = false;
          if (!owns) this.s.cwnd = this.s.ssthresh;
          this.dupAcks = 0;
        } else if (sack) {
          this.dupAcks = 0;
        } else {
          // NewReno partial ACK (RFC 6582 3.2): retransmit the next hole, deflate by what was acked.
          this.retransmitNext = true;
          if (!owns) this.s.cwnd = Math.max(this.s.cwnd - acked + mss, mss);
        }
      } else {
        this.dupAcks = 0;
        if (this.isCwndLimited()) cc.congAvoid(this.s, acked, now, this.srtt, this.minRtt);
      }
      if (this.sndUna >= this.sndMax) this.retransmitTimer.disarm();
      else this.retransmitTimer.arm(now + this.rto);
    } else if (ack === this.sndUna && this.sndMax > this.sndUna && sack) {
      this.dupAcks++;
    } else if (ack === this.sndUna && this.sndMax > this.sndUna) {
      this.dupAcks++;
      if (!this.inRecovery && this.dupAcks === DUP_THRESH && ack >= this.recover) {
        this.s.ssthresh = cc.ssthresh(this.s);
        // RFC 5681 3.2 step 3: inflate by the DupThresh segments that have left the network.
        if (!owns) this.s.cwnd = this.s.ssthresh + DUP_THRESH * mss;
        this.inRecovery = true;
        this.recover = this.sndMax;
        this.retransmitNext = true;
      } else if (this.inRecovery && !owns) {
        this.s.cwnd += mss;
      }
    }
    if (sack) this.onSackBlocks(p);
    if (owns) this.rateSample(now, this.inflight(), this.lossState);
    this.ctx.kickHost(this.src);
  }

  /**
   * Bytes in flight as Linux counts them (tcp_packets_in_flight): RFC 6675's pipe in recovery (lost
   * holes excluded); after a timeout only what was sent again since (go-back-N from snd_una).
   */
  protected inflight(): number {
    if (this.inRecovery && this.config.sack) return this.pipe();
    return Math.max(0, this.sndNxt - this.sndUna - this.board.sackedBetween(this.sndUna, this.sndNxt));
  }

  /** Fill this ACK's rate sample (tcp_rate.c tcp_rate_gen) and hand it to cong_control (BBR). */
  protected rateSample(now: number, inflightBytes: number, caState: number): void {
    const segs = this.segs!;
    const rs = this.rs;
    rs.nowPs = now;
    rs.inflightBytes = inflightBytes;
    rs.caState = caState;
    rs.rttPs = this.lastRttSample;
    rs.lostBytes = this.newlyLostBytes;
    this.newlyLostBytes = 0;
    this.lastRttSample = -1;
    segs.endAck(rs, now, this.minRtt);
    this.cc.congControl(this.s, rs);
    if (this.cc.holdsAppLimited) segs.markAppLimited(inflightBytes);
  }

  /** Merge the ACK's SACK blocks; enter RFC 6675 recovery on DupThresh duplicates or a lost hole. */
  private onSackBlocks(p: number): void {
    const blocks = this.ctx.pool.sack;
    const segs = this.segs;
    for (let k = 0; k < SACK_BLOCKS; k++) {
      const start = blocks[6 * p + 2 * k]!;
      const end = blocks[6 * p + 2 * k + 1]!;
      if (end > start) {
        this.board.add(start, end, this.sndUna);
        if (segs !== null && end > this.sndUna) segs.sack(Math.max(start, this.sndUna), end, noop);
      }
    }
    const mss = this.config.mssBytes;
    if (
      !this.inRecovery &&
      this.sndMax > this.sndUna &&
      this.sndUna >= this.recover &&
      (this.dupAcks >= DUP_THRESH || this.board.bytes >= DUP_THRESH * mss)
    ) {
      this.s.ssthresh = this.cc.ssthresh(this.s);
      if (this.cc.controlsWindow) this.cc.onRecoveryStart(this.s, this.rs);
      else this.s.cwnd = this.s.ssthresh;
      this.inRecovery = true;
      this.recover = this.sndMax;
      this.highRxt = this.sndUna;
    }
  }

  protected updateRtt(sample: number): void {
    if (sample <= 0) return;
    this.lastRttSample = sample;
    if (sample < this.minRtt) this.minRtt = sample;
    this.rttvar = (1 - RTTVAR_GAIN) * this.rttvar + RTTVAR_GAIN * Math.abs(this.srtt - sample);
    this.srtt = (1 - SRTT_GAIN) * this.srtt + SRTT_GAIN * sample;
    this.rto = this.computeRto();
  }
}

function noop(): void {}
