/**
 * The TCP sender with RACK-TLP loss recovery (RFC 8985), as Linux runs it: per-segment state
 * (sent-segments.ts), losses found by time (rack-tlp.ts) rather than by DupThresh, a tail loss
 * probe before the RTO, Linux's packets-in-flight (packets out - SACKed - lost + retransmitted),
 * Proportional Rate Reduction in fast recovery (RFC 6937, Linux tcp_cwnd_reduction),
 * and after a timeout the Loss state of net/ipv4/tcp_input.c tcp_enter_loss: every segment not
 * SACKed is deemed lost and resent in order, the SACK scoreboard is kept, ssthresh is set once
 * per episode.
 */
import { EV_CC_TIMER } from '../event-kinds.js';
import { RackTlp, TCP_TIMEOUT_MIN_PS } from './rack-tlp.js';
import { SACK_BLOCKS } from './sack.js';
import { SEG_EVER_RETRANS, SEG_LOST, SEG_SACKED, type SentSegments } from './sent-segments.js';
import {
  CA_LOSS,
  CA_OPEN,
  CA_RECOVERY,
  CWND_SLACK_BYTES,
  TcpConnection,
  type TcpConnectionOptions,
} from './tcp.js';

/** What the one retransmission timer is set for (Linux icsk_pending: ICSK_TIME_RETRANS, ICSK_TIME_LOSS_PROBE, ICSK_TIME_REO_TIMEOUT). */
const TIMER_RTO = 0;
const TIMER_TLP = 1;
const TIMER_REO = 2;

export class RackTcpConnection extends TcpConnection {
  readonly rack = new RackTlp();
  private caState = CA_OPEN;

  override get lossState(): number {
    return this.caState;
  }
  private timerKind = TIMER_RTO;
  /** A tail loss probe waits to go: -1 none, else the sequence to resend (or new data at sndNxt). */
  private probeSeq = -1;
  /** Tail loss probes sent. */
  lossProbes = 0;
  /** RFC 6937 PRR: cwnd when recovery began, bytes delivered and sent since. */
  private priorCwnd = 0;
  private prrDelivered = 0;
  private prrOut = 0;
  private readonly segments: SentSegments;
  private readonly onDelivered = (k: number): void => {
    const segs = this.segments;
    this.rack.advance(segs.flags[k]!, segs.end[k]!, segs.xmitPs[k]!, this.ctx.now, this.minRtt);
  };
  /**
   * tcp_sacktag_one's first_sackt / last_sackt: send times of the first and last segment (in sequence
   * order) this ACK newly SACKed that was never resent; -1 none.
   */
  private firstSackXmitPs = -1;
  private lastSackXmitPs = -1;
  private readonly onSacked = (k: number): void => {
    this.onDelivered(k);
    const segs = this.segments;
    if (segs.flags[k]! & SEG_EVER_RETRANS) return;
    if (this.firstSackXmitPs < 0) this.firstSackXmitPs = segs.xmitPs[k]!;
    this.lastSackXmitPs = segs.xmitPs[k]!;
  };

  constructor(o: TcpConnectionOptions) {
    super(o);
    this.segments = this.segs!;
  }

  /**
   * Linux tcp_packets_in_flight, in bytes: packets_out - (sacked_out + lost_out) + retrans_out. In
   * Linux a retransmitted segment keeps its TCPCB_LOST mark (it is in lost_out and in retrans_out, so
   * it counts once); here a retransmission clears SEG_LOST (sent-segments.ts), so it is already out of
   * `lostBytes` and is counted once as out - SACKed - lost.
   */
  protected override inflight(): number {
    const g = this.segments;
    return g.outBytes - g.sackedBytes - g.lostBytes;
  }

  /** The first segment deemed lost and not yet resent (index from snd_una), or -1. */
  private firstLost(): number {
    const g = this.segments;
    if (g.lostBytes <= 0) return -1;
    for (let i = 0; i < g.count; i++) {
      if ((g.flags[g.at(i)]! & (SEG_LOST | SEG_SACKED)) === SEG_LOST) return i;
    }
    return -1;
  }

  /**
   * Which part of outstanding record `index` to resend, as Linux cuts a TSO packet (tcp_fragment):
   * a loss probe resends only its last segment (tcp_send_loss_probe); a lost packet as many whole
   * segments as cwnd has room for, at least one (tcp_xmit_retransmit_queue: segs = cwnd - in flight,
   * then __tcp_retransmit_skb). Returns the index of the record to send.
   */
  private fragmentForResend(index: number, probe: boolean): number {
    const g = this.segments;
    const mss = this.config.mssBytes;
    const k = g.at(index);
    const len = g.len(k);
    if (len <= mss) return index;
    if (probe) {
      g.split(index, g.start[k]! + (Math.ceil(len / mss) - 1) * mss);
      return index + 1;
    }
    const room = Math.max(1, Math.floor((this.s.cwnd + CWND_SLACK_BYTES - this.inflight()) / mss));
    if (len > room * mss) g.split(index, g.start[k]! + room * mss);
    return index;
  }

  override readiness(now: number): number {
    if (this.probeSeq >= 0 && this.probeSeq < this.sndUna) this.probeSeq = -1;
    let ready: number;
    if (this.probeSeq >= 0) ready = now;
    else {
      const inflight = this.inflight();
      const room = inflight + this.config.mssBytes <= this.s.cwnd + CWND_SLACK_BYTES || inflight <= 0;
      if (this.firstLost() >= 0) ready = room ? now : Infinity;
      else if (this.sndNxt >= this.appLimit) {
        if (this.segments.appLimited === 0 && inflight < this.s.cwnd) this.segments.markAppLimited(inflight);
        ready = Infinity;
      } else ready = room ? now : Infinity;
    }
    return ready <= now && this.nextSendPs > now ? this.nextSendPs : ready;
  }

  override nextPacket(now: number): number {
    this.txStart(now);
    const g = this.segments;
    let probe = this.probeSeq;
    this.probeSeq = -1;
    let seq = this.sndNxt;
    let len = Math.min(this.batch(this.inflight()), this.appLimit - seq);
    let isNew = true;
    const probeIndex = probe >= 0 && probe < this.sndNxt ? g.find(probe) : -1;
    if (probe >= 0 && probe < this.sndNxt && probeIndex < 0) probe = -1; // acknowledged meanwhile
    const index = probeIndex >= 0 ? probeIndex : probe >= 0 ? -1 : this.firstLost();
    const k = index >= 0 ? g.at(this.fragmentForResend(index, probeIndex >= 0)) : -1;
    const nothingOut = g.count === 0;
    if (k >= 0) {
      seq = g.start[k]!;
      len = g.len(k);
      isNew = false;
      g.retransmit(seq, seq + len, now);
      this.countRetransmit();
    } else {
      this.sndNxt = seq + len;
      if (this.sndNxt > this.sndMax) this.sndMax = this.sndNxt;
      g.push(seq, seq + len, now);
    }
    if (probe >= 0) {
      this.rack.tlpHighSeq = this.sndNxt;
      this.rack.tlpRetrans = !isNew;
    }
    if (this.caState === CA_RECOVERY) this.prrOut += len;
    const p = this.emit(seq, len, now);
    this.cwndValidate();
    if (probe < 0) this.afterSend(now, isNew, seq, nothingOut);
    return p;
  }

  /**
   * The timer after a send that is not a loss probe. A resent head restarts the RTO from now unless RACK's
   * reorder timer is pending (tcp_xmit_retransmit_queue); other resends leave the timer alone. New data
   * rearms the RTO only if nothing was out or a loss probe was pending (tcp_event_new_data_sent), then,
   * while Open, reschedules the loss probe (tcp_write_xmit -> tcp_schedule_loss_probe). So sending in
   * recovery does not postpone the RTO, as Linux does not.
   */
  private afterSend(now: number, isNew: boolean, seq: number, nothingOut: boolean): void {
    if (!isNew) {
      if (seq === this.sndUna && this.timerKind !== TIMER_REO) {
        this.timerKind = TIMER_RTO;
        this.retransmitTimer.arm(now + this.rto);
      }
      return;
    }
    if (nothingOut || this.timerKind === TIMER_TLP) this.rearmRto(now);
    if (this.caState === CA_OPEN && this.config.sack) this.setXmitTimer(now, false);
  }

  /** tcp_set_xmit_timer: a loss probe if one may be sent (Open state, SACK on), else the RTO. */
  private setXmitTimer(now: number, advancing: boolean): void {
    const g = this.segments;
    if (g.count === 0) {
      this.retransmitTimer.disarm();
      return;
    }
    // tcp_schedule_loss_probe: never later than the RTO (from now on an ACK, else from the head's send).
    const rtoLeft = advancing ? this.rto : g.xmitPs[g.at(0)]! + this.rto - now;
    if (this.caState === CA_OPEN && this.config.sack) {
      const pto = this.rack.probeTimeout(this.srtt, this.packetsOut(), this.config.minRtoPs);
      this.timerKind = TIMER_TLP;
      this.retransmitTimer.arm(now + (rtoLeft > 0 ? Math.min(pto, rtoLeft) : pto));
      return;
    }
    this.rearmRto(now);
  }

  /**
   * Linux tp->packets_out: segments sent and not cumulatively acknowledged, a TSO packet counting
   * each of its MSS-sized segments (tcp_skb_pcount), as the loss probe's timeout reads it. Only
   * whether it is 1 matters there, so past the first two records the count stops.
   */
  private packetsOut(): number {
    const g = this.segments;
    const mss = this.config.mssBytes;
    let segments = 0;
    for (let i = 0; i < g.count && segments < 2; i++) segments += Math.ceil(g.len(g.at(i)) / mss);
    return segments;
  }

  /** tcp_rearm_rto: RTO from now, or from the head's send when a probe or reorder timer was pending. */
  private rearmRto(now: number): void {
    const g = this.segments;
    if (g.count === 0) {
      this.retransmitTimer.disarm();
      return;
    }
    const deadline =
      this.timerKind === TIMER_RTO ? now + this.rto : Math.max(now + 1, g.xmitPs[g.at(0)]! + this.rto);
    this.timerKind = TIMER_RTO;
    this.retransmitTimer.arm(deadline);
  }

  override onTimer(type: number, timePs: number): void {
    if (type === EV_CC_TIMER) {
      super.onTimer(type, timePs);
      return;
    }
    if (!this.retransmitTimer.expired(timePs)) return;
    if (this.segments.count === 0) return;
    if (this.timerKind === TIMER_TLP) this.sendLossProbe(timePs);
    else if (this.timerKind === TIMER_REO) this.reorderTimeout(timePs);
    else this.enterLoss(timePs);
    this.ctx.kickHost(this.src);
  }

  /**
   * tcp_send_loss_probe: new data if there is some, else the last segment again; one per episode.
   * A probe sent restarts the RTO from now (icsk_pending cleared, then tcp_rearm_rto); with a probe
   * already out, tcp_rearm_rto still sees the probe timer pending and counts the RTO from the head's send.
   */
  private sendLossProbe(now: number): void {
    if (this.rack.tlpHighSeq >= 0) {
      this.rearmRto(now);
      return;
    }
    const g = this.segments;
    this.probeSeq = this.sndNxt < this.appLimit ? this.sndNxt : g.start[g.at(g.count - 1)]!;
    this.lossProbes++;
    this.rack.probes++;
    this.timerKind = TIMER_RTO;
    this.retransmitTimer.arm(now + this.rto);
  }

  /** tcp_rack_reo_timeout: the reordering window passed; mark and recover. */
  private reorderTimeout(now: number): void {
    const before = this.segments.lostBytes;
    this.rack.detectLoss(this.segments, now, this.reoWnd(), true);
    if (this.segments.lostBytes > before && this.caState === CA_OPEN) {
      this.enterRecovery();
      if (!this.cc.controlsWindow) this.cwndReduction(this.config.mssBytes, 0, false);
    }
    this.rearmRto(now);
  }

  /** tcp_enter_loss: every segment not SACKed is lost; cwnd one segment; the RTO backs off. */
  private enterLoss(now: number): void {
    this.timeouts++;
    this.ctx.counters.timeouts++;
    const g = this.segments;
    if (this.timeoutSetsSsthresh(this.caState)) this.s.ssthresh = this.cc.ssthresh(this.s);
    this.backoffs++;
    this.cc.onTimeout(this.s);
    this.s.cwnd = this.config.mssBytes;
    for (let i = 0; i < g.count; i++) g.markLost(g.at(i));
    this.caState = CA_LOSS;
    this.recover = this.sndMax;
    this.rack.tlpHighSeq = -1;
    this.probeSeq = -1;
    this.rto = Math.min(this.rto * 2, this.config.maxRtoPs);
    this.timerKind = TIMER_RTO;
    this.retransmitTimer.arm(now + this.rto);
  }

  /** tcp_enter_recovery with tcp_init_cwnd_reduction: ssthresh now, cwnd brought down by PRR. */
  private enterRecovery(): void {
    this.s.ssthresh = this.cc.ssthresh(this.s);
    if (this.cc.controlsWindow) this.cc.onRecoveryStart(this.s, this.rs);
    this.priorCwnd = this.s.cwnd;
    this.prrDelivered = 0;
    this.prrOut = 0;
    this.caState = CA_RECOVERY;
    this.recover = this.sndMax;
  }

  /** tcp_cwnd_reduction (RFC 6937): send in proportion to what is delivered until inflight reaches ssthresh. */
  private cwndReduction(newlyDelivered: number, newlyLost: number, advanced: boolean): void {
    if (newlyDelivered <= 0 || this.priorCwnd <= 0) return;
    const mss = this.config.mssBytes;
    this.prrDelivered += newlyDelivered;
    const inflight = this.inflight();
    const delta = this.s.ssthresh - inflight;
    let sndcnt: number;
    if (delta < 0) sndcnt = Math.ceil((this.s.ssthresh * this.prrDelivered) / this.priorCwnd) - this.prrOut;
    else {
      // PRR-SSRB: one more segment when snd_una advanced without new losses.
      sndcnt = Math.max(this.prrOut - this.prrDelivered, newlyDelivered);
      if (advanced && newlyLost === 0) sndcnt += mss;
      sndcnt = Math.min(delta, sndcnt);
    }
    // Force a fast retransmit on entering recovery.
    sndcnt = Math.max(sndcnt, this.prrOut > 0 ? 0 : mss);
    this.s.cwnd = inflight + sndcnt;
  }

  private reoWnd(): number {
    return this.rack.reoWnd(
      this.caState !== CA_OPEN,
      this.segments.sackedBytes / this.config.mssBytes,
      this.minRtt,
      this.srtt,
    );
  }

  override onControl(p: number): void {
    const pool = this.ctx.pool;
    const ack = pool.seq(p);
    const now = this.ctx.now;
    const cc = this.cc;
    const g = this.segments;
    if (cc.ecnCapable) {
      const ece = pool.ecn(p) === 1;
      if (ece) this.ctx.counters.ecnEchoes++;
      cc.inAckEvent(this.s, ack, this.sndUna, this.sndMax, ece, this.caState !== CA_OPEN);
    }
    g.beginAck();
    const lostBefore = g.lostBytes;
    const advanced = ack > this.sndUna;
    if (advanced) {
      this.sndUna = ack;
      this.backoffs = 0;
      if (this.sndNxt < ack) this.sndNxt = ack;
      this.board.prune(ack);
      g.ackTo(ack, this.onDelivered);
      this.updateRtt(now - pool.ts(p));
    }
    let dsack = false;
    const blocks = pool.sack;
    for (let k = 0; k < SACK_BLOCKS; k++) {
      const start = blocks[6 * p + 2 * k]!;
      const end = blocks[6 * p + 2 * k + 1]!;
      if (end <= start) continue;
      // RFC 2883: a first block below the cumulative ACK reports a duplicate (DSACK).
      if (end <= ack) {
        if (k === 0) dsack = true;
        continue;
      }
      this.board.add(start, end, this.sndUna);
      g.sack(Math.max(start, this.sndUna), end, this.onSacked);
    }
    const sackRearm = this.sackRtt(now, advanced);
    this.processTlpAck(ack, dsack, advanced);
    let reoTimeout = 0;
    if (this.caState !== CA_OPEN || g.sackedBytes > 0 || dsack)
      reoTimeout = this.rack.detectLoss(g, now, this.reoWnd());
    if (this.caState === CA_OPEN && g.lostBytes > 0) this.enterRecovery();
    else if (this.caState !== CA_OPEN && this.sndUna >= this.recover) {
      if (this.caState === CA_RECOVERY && !cc.controlsWindow) this.s.cwnd = this.s.ssthresh;
      this.caState = CA_OPEN;
    }
    this.newlyLostBytes = Math.max(0, g.lostBytes - lostBefore);
    if (this.caState === CA_RECOVERY && !cc.controlsWindow)
      this.cwndReduction(g.newlyDelivered, this.newlyLostBytes, advanced);
    // tcp_cong_control -> tcp_cong_avoid: outside recovery, and only while cwnd is the limit.
    if (this.caState !== CA_RECOVERY && g.newlyDelivered > 0 && this.isCwndLimited())
      cc.congAvoid(this.s, g.newlyDelivered, now, this.srtt, this.minRtt);
    if (cc.controlsWindow) this.rateSample(now, this.inflight(), this.caState);
    // tcp_identify_packet_loss: a reorder timer set by RACK stands; else progress resets TLP or RTO.
    if (reoTimeout > 0) {
      this.timerKind = TIMER_REO;
      this.retransmitTimer.arm(now + reoTimeout + TCP_TIMEOUT_MIN_PS);
    } else if (advanced || sackRearm) this.setXmitTimer(now, true);
    else if (g.count === 0) this.retransmitTimer.disarm();
    this.ctx.kickHost(this.src);
  }

  /** tcp_process_tlp_ack (RFC 8985 section 7.4): did the probe repair a loss? Then reduce cwnd once. */
  /**
   * An ACK that SACKs without moving snd_una still gives an RTT sample (tcp_ack_update_rtt: seq_rtt from
   * first_sackt for srtt and the RTO, ca_rtt from last_sackt for the congestion control), and rearms the
   * TLP or RTO timer if that data left before the head's last send (tcp_clean_rtx_queue: "otherwise the
   * timeout may continue to extend in loss recovery"). Returns whether to rearm.
   */
  private sackRtt(now: number, advanced: boolean): boolean {
    const first = this.firstSackXmitPs;
    const last = this.lastSackXmitPs;
    this.firstSackXmitPs = -1;
    this.lastSackXmitPs = -1;
    if (advanced || first < 0) return false;
    this.updateRtt(now - first);
    if (last >= 0 && now > last) this.lastRttSample = now - last;
    const g = this.segments;
    return g.count > 0 && first < g.xmitPs[g.at(0)]!;
  }

  private processTlpAck(ack: number, dsack: boolean, advanced: boolean): void {
    const rack = this.rack;
    if (rack.tlpHighSeq < 0 || ack < rack.tlpHighSeq) return;
    if (!rack.tlpRetrans || dsack) rack.tlpHighSeq = -1;
    else if (ack > rack.tlpHighSeq) {
      rack.tlpHighSeq = -1;
      this.s.ssthresh = this.cc.ssthresh(this.s);
      if (!this.cc.controlsWindow) this.s.cwnd = Math.min(this.s.cwnd, this.s.ssthresh);
    } else if (!advanced && this.segments.newlyDelivered === 0) rack.tlpHighSeq = -1;
  }
}
