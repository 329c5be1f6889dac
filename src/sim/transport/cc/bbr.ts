/**
 * BBR v1 as Linux net/ipv4/tcp_bbr.c runs it (Cardwell et al., ACM Queue 2016): a windowed-max
 * bandwidth over 10 rounds and a 10 s windowed-min RTT; STARTUP at gain 2/ln2 until the bandwidth
 * stops growing 25% for three rounds, DRAIN, PROBE_BW's eight-phase gain cycle, and PROBE_RTT
 * (cwnd 4 packets for 200 ms) when the min RTT is 10 s old. cwnd = 2 BDP plus the TSO quantization
 * budget and the ACK-aggregation allowance, never below 4 packets; paced at gain x bandwidth less
 * 1%; a restart from idle while app-limited paces at the bandwidth itself (bbr_cwnd_event); and the
 * long-term (policer) bandwidth: two sampling intervals of 4 to 16 rounds, each ending at a loss with a
 * fifth of the packets lost, whose delivery rates agree within 1/8, make BBR pace at their average with
 * gain 1 for 48 rounds (bbr_lt_bw_sampling).
 */
import { BaseCongestionControl, type CcWindow, type RateSample } from './types.js';
import { WindowedMax } from './win-minmax.js';

/** tcp_bbr.c bbr_high_gain = BBR_UNIT * 2885 / 1000 + 1: 2/ln2, the smallest gain that doubles the rate per round. */
export const BBR_HIGH_GAIN = (Math.floor((256 * 2885) / 1000) + 1) / 256;
/** tcp_bbr.c bbr_drain_gain = BBR_UNIT * 1000 / 2885: the inverse of the startup gain. */
export const BBR_DRAIN_GAIN = Math.floor((256 * 1000) / 2885) / 256;
/** tcp_bbr.c bbr_cwnd_gain = BBR_UNIT * 2. */
export const BBR_CWND_GAIN = 2;
/** tcp_bbr.c bbr_pacing_gain[]: probe 5/4, drain 3/4, then six phases at 1. */
export const BBR_PACING_GAINS = [5 / 4, 3 / 4, 1, 1, 1, 1, 1, 1] as const;
/** tcp_bbr.c bbr_cycle_rand = 7: the cycle starts at a random phase other than the 3/4 one. */
const BBR_CYCLE_RAND = 7;
/** tcp_bbr.c bbr_bw_rtts = CYCLE_LEN + 2: the bandwidth filter's window, in rounds. */
const BBR_BW_ROUNDS = BBR_PACING_GAINS.length + 2;
/** tcp_bbr.c bbr_min_rtt_win_sec = 10. */
export const BBR_MIN_RTT_WINDOW_PS = 10e12;
/** tcp_bbr.c bbr_probe_rtt_mode_ms = 200. */
export const BBR_PROBE_RTT_PS = 200e9;
/** tcp_bbr.c bbr_cwnd_min_target = 4 packets. */
export const BBR_CWND_MIN_SEGMENTS = 4;
/** tcp_bbr.c bbr_full_bw_thresh = BBR_UNIT * 5 / 4 and bbr_full_bw_cnt = 3. */
const BBR_FULL_BW_THRESH = 5 / 4;
const BBR_FULL_BW_COUNT = 3;
/** tcp_bbr.c bbr_pacing_margin_percent = 1. */
const BBR_PACING_MARGIN = 0.01;
/** include/net/tcp.h TCP_INIT_CWND = 10: bbr_bdp's answer before any RTT sample, and bbr_set_cwnd's slow-start floor. */
const TCP_INIT_CWND = 10;
/** tcp_bbr.c bbr_tso_segs_goal: GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER bytes (about 320 B of headers on x86-64). */
const TSO_MAX_BYTES = 65536 - 1 - 320;
/** include/net/sock.h sk_pacing_shift = 10: a TSO burst is at most about 1 ms (2^-10 s) of the pacing rate. */
const PACING_SHIFT_S = 1 / 1024;
/** tcp_bbr.c bbr_min_tso_rate = 1200000 bit/s: below it, one segment per burst; else bbr_min_tso_segs 2. */
const BBR_MIN_TSO_RATE_BYTES_PER_PS = 1.2e6 / 8 / 1e12;
/** tcp_bbr.c: at most 0x7F segments per TSO burst. */
const TSO_MAX_SEGS = 0x7f;
/** tcp_bbr.c bbr_extra_acked_gain = BBR_UNIT and bbr_extra_acked_win_rtts = 5: the aggregation allowance's gain and window. */
const BBR_EXTRA_ACKED_GAIN = 1;
const BBR_EXTRA_ACKED_WIN_ROUNDS = 5;
/** tcp_bbr.c bbr_ack_epoch_acked_reset_thresh = 1 << 20 packets. */
const BBR_ACK_EPOCH_RESET_SEGMENTS = 1 << 20;
/** tcp_bbr.c bbr_extra_acked_max_us = 100 ms: the allowance is at most 100 ms of bandwidth. */
const BBR_EXTRA_ACKED_MAX_PS = 100e9;
/** tcp_bbr.c bbr_init_pacing_rate_from_rtt: 1 ms (USEC_PER_MSEC) when there is no RTT sample yet. */
const DEFAULT_RTT_PS = 1e9;
/**
 * tcp_bbr.c long-term bandwidth (policer detection): bbr_lt_intvl_min_rtts = 4 rounds a sampling interval
 * at least, at most 4 x that; bbr_lt_loss_thresh = 50 / 256 of the delivered packets lost; bbr_lt_bw_ratio
 * = 1/8 and bbr_lt_bw_diff = 4000 bit/s (as bytes per ps here) between the two intervals' rates;
 * bbr_lt_bw_max_rtts = 48 rounds of using it.
 */
const BBR_LT_INTERVAL_MIN_ROUNDS = 4;
const BBR_LT_LOSS_THRESH = 50 / 256;
const BBR_LT_BW_RATIO = 1 / 8;
const BBR_LT_BW_DIFF_BYTES_PER_PS = 4000 / 8 / 1e12;
const BBR_LT_BW_MAX_ROUNDS = 48;
/** The interval's delivery rate is taken only over at least 1 ms (USEC_PER_MSEC in bbr_lt_bw_sampling). */
const BBR_LT_MIN_INTERVAL_PS = 1e9;
/** tcp_bbr.c bbr_quantization_budget: cwnd += 3 * bbr_tso_segs_goal(sk), room for 3 TSO bursts. */
const BBR_QUANTIZATION_TSO_BURSTS = 3;
/**
 * The random start phase (Linux: get_random_u32_below) comes from a per-connection LCG so that runs
 * repeat: the ISO C standard's example rand() (C11 7.22.2.2): next = next x 1103515245 + 12345,
 * output next / 65536.
 */
const LCG_MULTIPLIER = 1103515245;
const LCG_INCREMENT = 12345;
const LCG_OUTPUT_SHIFT = 16;

/** tcp_bbr.c enum bbr_mode: STARTUP, DRAIN, PROBE_BW, PROBE_RTT. */
export const BBR_STARTUP = 0;
export const BBR_DRAIN = 1;
export const BBR_PROBE_BW = 2;
export const BBR_PROBE_RTT = 3;
/** The sender's states as BBR sees them (include/net/tcp.h enum tcp_ca_state: Open, Recovery, Loss). */
const CA_OPEN = 0;
const CA_RECOVERY = 1;
const CA_LOSS = 2;

export interface BbrOptions {
  /** Round trip of the idle path (the handshake's sample), ps. */
  initialRttPs: number;
  /** Seeds the choice of the first PROBE_BW phase (prandom_u32_max in the kernel). */
  seed: number;
}

export class BbrCc extends BaseCongestionControl {
  readonly name = 'bbr' as const;
  override readonly controlsWindow = true;
  override pacingBytesPerPs: number;
  mode = BBR_STARTUP;
  readonly bw = new WindowedMax();
  minRttPs = Infinity;
  private minRttStampPs = 0;
  private probeRttDonePs = 0;
  private probeRttRoundDone = false;
  roundCount = 0;
  private nextRttDelivered = 0;
  private roundStart = false;
  private fullBw = 0;
  private fullBwCount = 0;
  fullBwReached = false;
  cycleIndex = 0;
  private cycleStampPs = 0;
  pacingGain = BBR_HIGH_GAIN;
  cwndGain = BBR_HIGH_GAIN;
  private priorCwnd = 0;
  private packetConservation = false;
  private prevCaState = CA_OPEN;
  private rand: number;
  /** ACK aggregation (tcp_bbr.c bbr_update_ack_aggregation): two windowed maxima of extra acked bytes. */
  private readonly extraAcked = [0, 0];
  private extraAckedIndex = 0;
  private extraAckedRounds = 0;
  private ackEpochPs = 0;
  private ackEpochAcked = 0;
  /** tcp_bbr.c idle_restart: sending resumed after idle, until an ACK delivers data. */
  private idleRestart = false;
  /** Long-term bandwidth (tcp_bbr.c lt_*): bytes per ps, whether in use, the sampling interval's start. */
  ltBw = 0;
  ltUseBw = false;
  private ltIsSampling = false;
  private ltRounds = 0;
  private ltLastStampPs = 0;
  private ltLastDelivered = 0;
  private ltLastLost = 0;
  /** tp->lost: bytes ever marked lost (rs->losses summed), as the long-term sampling counts them. */
  private totalLost = 0;
  private lastDelivered = 0;
  private deliveredStampPs = 0;

  constructor(w: CcWindow, options: BbrOptions) {
    super();
    this.rand = options.seed >>> 0 || 1;
    // bbr_init_pacing_rate_from_rtt: high gain x initial cwnd / RTT.
    const rtt = options.initialRttPs > 0 ? options.initialRttPs : DEFAULT_RTT_PS;
    this.pacingBytesPerPs = this.rateOf(w.cwnd / rtt, BBR_HIGH_GAIN);
  }

  /** tcp_bbr.c bbr_update_min_rtt: samples taken in PROBE_RTT are app-limited. */
  override get holdsAppLimited(): boolean {
    return this.mode === BBR_PROBE_RTT;
  }

  /** tcp_bbr.c bbr_ssthresh: save cwnd for after recovery, leave ssthresh alone. */
  ssthresh(w: CcWindow): number {
    this.saveCwnd(w);
    return w.ssthresh;
  }

  congAvoid(): void {}

  /** tcp_bbr.c bbr_set_state(TCP_CA_Loss): restart full-pipe detection, start a round. */
  override onTimeout(w: CcWindow): void {
    this.saveCwnd(w);
    this.prevCaState = CA_LOSS;
    this.fullBw = 0;
    this.roundStart = true;
    // bbr_set_state(TCP_CA_Loss): bbr_lt_bw_sampling with a sample of one loss.
    this.ltBwSampling(true, false);
  }

  /** tcp_bbr.c bbr_bw: the long-term bandwidth while it is in use, else the windowed maximum. */
  get currentBw(): number {
    return this.ltUseBw ? this.ltBw : this.bw.value;
  }

  /**
   * tcp_bbr.c bbr_cwnd_event(CA_EVENT_TX_START): restarting from idle while app-limited, BBR restarts
   * the ACK-aggregation epoch and, in PROBE_BW, paces at the estimated bandwidth (gain 1) rather than
   * the phase's gain ("avoid pointless buffer overflows"); in PROBE_RTT it checks whether the probe is done.
   */
  override onTxStart(w: CcWindow, nowPs: number, appLimited: boolean): void {
    if (!appLimited) return;
    this.idleRestart = true;
    this.ackEpochPs = nowPs;
    this.ackEpochAcked = 0;
    if (this.mode === BBR_PROBE_BW) this.setPacingRate(this.currentBw, 1);
    else if (this.mode === BBR_PROBE_RTT) this.checkProbeRttDone(w, nowPs);
  }

  override onRecoveryStart(w: CcWindow): void {
    this.saveCwnd(w);
  }

  /** tcp_bbr.c bbr_main. */
  override congControl(w: CcWindow, rs: RateSample): void {
    this.updateBw(rs);
    this.updateAckAggregation(w, rs);
    this.updateCyclePhase(rs);
    this.checkFullBwReached(rs);
    this.checkDrain(w, rs);
    this.updateMinRtt(w, rs);
    this.updateGains();
    const bw = this.currentBw;
    this.setPacingRate(bw, this.pacingGain);
    this.setCwnd(w, rs, bw);
  }

  /** BDP x gain in bytes (bbr_bdp), before any RTT sample TCP_INIT_CWND packets. */
  bdp(mss: number, bw: number, gain: number): number {
    if (!Number.isFinite(this.minRttPs)) return TCP_INIT_CWND * mss;
    return Math.ceil((bw * this.minRttPs * gain) / mss) * mss;
  }

  /** tcp_bbr.c bbr_inflight with bbr_quantization_budget: room for 3 TSO bursts, even packets, +2 in the probe phase. */
  inflightTarget(mss: number, bw: number, gain: number, extraBytes = 0): number {
    let segs = (this.bdp(mss, bw, gain) + extraBytes) / mss;
    segs += BBR_QUANTIZATION_TSO_BURSTS * this.tsoSegsGoal(mss);
    segs = (Math.ceil(segs) + 1) & ~1;
    if (this.mode === BBR_PROBE_BW && this.cycleIndex === 0) segs += 2;
    return segs * mss;
  }

  /** tcp_bbr.c bbr_tso_segs_goal: about 1 ms of the pacing rate, at most 64 KB, at least 2 segments. */
  private tsoSegsGoal(mss: number): number {
    const bytes = Math.min(this.pacingBytesPerPs * 1e12 * PACING_SHIFT_S, TSO_MAX_BYTES);
    const minSegs = this.pacingBytesPerPs < BBR_MIN_TSO_RATE_BYTES_PER_PS ? 1 : 2;
    return Math.min(Math.max(Math.floor(bytes / mss), minSegs), TSO_MAX_SEGS);
  }

  private rateOf(bw: number, gain: number): number {
    return bw * gain * (1 - BBR_PACING_MARGIN);
  }

  private saveCwnd(w: CcWindow): void {
    if (this.prevCaState < CA_RECOVERY && this.mode !== BBR_PROBE_RTT) this.priorCwnd = w.cwnd;
    else this.priorCwnd = Math.max(this.priorCwnd, w.cwnd);
  }

  private updateBw(rs: RateSample): void {
    this.roundStart = false;
    this.totalLost += rs.lostBytes;
    if (rs.totalDelivered > this.lastDelivered) {
      this.lastDelivered = rs.totalDelivered;
      this.deliveredStampPs = rs.nowPs;
    }
    if (rs.deliveredBytes < 0 || rs.intervalPs <= 0) return;
    if (rs.priorDelivered >= this.nextRttDelivered) {
      this.nextRttDelivered = rs.totalDelivered;
      this.roundCount++;
      this.roundStart = true;
      this.packetConservation = false;
    }
    this.ltBwSampling(rs.lostBytes > 0, rs.isAppLimited);
    const bw = rs.deliveredBytes / rs.intervalPs;
    if (!rs.isAppLimited || bw >= this.bw.value) this.bw.update(BBR_BW_ROUNDS, this.roundCount, bw);
  }

  /** tcp_bbr.c bbr_reset_lt_bw_sampling_interval. */
  private resetLtInterval(): void {
    this.ltLastStampPs = this.deliveredStampPs;
    this.ltLastDelivered = this.lastDelivered;
    this.ltLastLost = this.totalLost;
    this.ltRounds = 0;
  }

  /** tcp_bbr.c bbr_reset_lt_bw_sampling. */
  private resetLtSampling(): void {
    this.ltBw = 0;
    this.ltUseBw = false;
    this.ltIsSampling = false;
    this.resetLtInterval();
  }

  /** tcp_bbr.c bbr_lt_bw_interval_done: two intervals that agree mean a policer; use their average. */
  private ltIntervalDone(bw: number): void {
    if (this.ltBw > 0) {
      const diff = Math.abs(bw - this.ltBw);
      if (diff <= BBR_LT_BW_RATIO * this.ltBw || this.rateOf(diff, 1) <= BBR_LT_BW_DIFF_BYTES_PER_PS) {
        this.ltBw = (bw + this.ltBw) / 2;
        this.ltUseBw = true;
        this.pacingGain = 1;
        this.ltRounds = 0;
        return;
      }
    }
    this.ltBw = bw;
    this.resetLtInterval();
  }

  /**
   * tcp_bbr.c bbr_lt_bw_sampling: from the first loss, an interval of 4 to 16 rounds that ends at a loss
   * once a fifth of what it delivered was lost; its delivery rate is the sample. Running out of data
   * (an app-limited sample) starts over; in use, the long-term rate lasts 48 rounds of PROBE_BW.
   */
  private ltBwSampling(losses: boolean, appLimited: boolean): void {
    if (this.ltUseBw) {
      if (this.mode === BBR_PROBE_BW && this.roundStart && ++this.ltRounds >= BBR_LT_BW_MAX_ROUNDS) {
        this.resetLtSampling();
        this.resetProbeBw(this.deliveredStampPs);
      }
      return;
    }
    if (!this.ltIsSampling) {
      if (!losses) return;
      this.resetLtInterval();
      this.ltIsSampling = true;
    }
    if (appLimited) {
      this.resetLtSampling();
      return;
    }
    if (this.roundStart) this.ltRounds++;
    if (this.ltRounds < BBR_LT_INTERVAL_MIN_ROUNDS) return;
    if (this.ltRounds > 4 * BBR_LT_INTERVAL_MIN_ROUNDS) {
      this.resetLtSampling();
      return;
    }
    if (!losses) return;
    const lost = this.totalLost - this.ltLastLost;
    const delivered = this.lastDelivered - this.ltLastDelivered;
    if (delivered <= 0 || lost < BBR_LT_LOSS_THRESH * delivered) return;
    const t = this.deliveredStampPs - this.ltLastStampPs;
    if (t < BBR_LT_MIN_INTERVAL_PS) return;
    this.ltIntervalDone(delivered / t);
  }

  /** tcp_bbr.c bbr_update_ack_aggregation: bytes acknowledged beyond what the bandwidth explains. */
  private updateAckAggregation(w: CcWindow, rs: RateSample): void {
    if (rs.ackedBytes <= 0 || rs.deliveredBytes < 0 || rs.intervalPs <= 0) return;
    if (this.roundStart) {
      this.extraAckedRounds = Math.min(0x1f, this.extraAckedRounds + 1);
      if (this.extraAckedRounds >= BBR_EXTRA_ACKED_WIN_ROUNDS) {
        this.extraAckedRounds = 0;
        this.extraAckedIndex = 1 - this.extraAckedIndex;
        this.extraAcked[this.extraAckedIndex] = 0;
      }
    }
    let expected = this.currentBw * (rs.nowPs - this.ackEpochPs);
    if (
      this.ackEpochAcked <= expected ||
      this.ackEpochAcked + rs.ackedBytes >= BBR_ACK_EPOCH_RESET_SEGMENTS * w.mss
    ) {
      this.ackEpochAcked = 0;
      this.ackEpochPs = rs.nowPs;
      expected = 0;
    }
    this.ackEpochAcked += rs.ackedBytes;
    const extra = Math.min(this.ackEpochAcked - expected, w.cwnd);
    if (extra > this.extraAcked[this.extraAckedIndex]!) this.extraAcked[this.extraAckedIndex] = extra;
  }

  /** tcp_bbr.c bbr_ack_aggregation_cwnd: once the pipe is full, room for the largest recent aggregate. */
  private aggregationCwnd(): number {
    if (!this.fullBwReached) return 0;
    const extra = Math.max(this.extraAcked[0]!, this.extraAcked[1]!);
    return Math.min(BBR_EXTRA_ACKED_GAIN * extra, this.currentBw * BBR_EXTRA_ACKED_MAX_PS);
  }

  /** tcp_bbr.c bbr_is_next_cycle_phase / bbr_advance_cycle_phase. */
  private updateCyclePhase(rs: RateSample): void {
    if (this.mode !== BBR_PROBE_BW) return;
    const fullLength = rs.nowPs - this.cycleStampPs > this.minRttPs;
    const priorInflight = rs.inflightBytes + rs.ackedBytes;
    let next: boolean;
    if (this.pacingGain === 1) next = fullLength;
    else if (this.pacingGain > 1)
      next =
        fullLength &&
        (rs.lostBytes > 0 || priorInflight >= this.inflightTarget(rs.mss, this.bw.value, this.pacingGain));
    else next = fullLength || priorInflight <= this.inflightTarget(rs.mss, this.bw.value, 1);
    if (next) this.advanceCycle(rs.nowPs);
  }

  private advanceCycle(nowPs: number): void {
    this.cycleIndex = (this.cycleIndex + 1) % BBR_PACING_GAINS.length;
    this.cycleStampPs = nowPs;
  }

  private checkFullBwReached(rs: RateSample): void {
    if (this.fullBwReached || !this.roundStart || rs.isAppLimited) return;
    if (this.bw.value >= this.fullBw * BBR_FULL_BW_THRESH) {
      this.fullBw = this.bw.value;
      this.fullBwCount = 0;
      return;
    }
    this.fullBwCount++;
    this.fullBwReached = this.fullBwCount >= BBR_FULL_BW_COUNT;
  }

  private checkDrain(w: CcWindow, rs: RateSample): void {
    if (this.mode === BBR_STARTUP && this.fullBwReached) {
      this.mode = BBR_DRAIN;
      w.ssthresh = this.inflightTarget(w.mss, this.bw.value, 1);
    }
    if (this.mode === BBR_DRAIN && rs.inflightBytes <= this.inflightTarget(w.mss, this.bw.value, 1))
      this.resetProbeBw(rs.nowPs);
  }

  /** tcp_bbr.c bbr_reset_probe_bw_mode: cycle_idx = CYCLE_LEN - 1 - random(bbr_cycle_rand), then advance. */
  private resetProbeBw(nowPs: number): void {
    this.mode = BBR_PROBE_BW;
    this.rand = (Math.imul(this.rand, LCG_MULTIPLIER) + LCG_INCREMENT) >>> 0;
    this.cycleIndex = BBR_PACING_GAINS.length - 1 - ((this.rand >>> LCG_OUTPUT_SHIFT) % BBR_CYCLE_RAND);
    this.advanceCycle(nowPs);
  }

  /** tcp_bbr.c bbr_update_min_rtt: the 10 s min filter and PROBE_RTT. */
  private updateMinRtt(w: CcWindow, rs: RateSample): void {
    const expired = rs.nowPs > this.minRttStampPs + BBR_MIN_RTT_WINDOW_PS;
    if (rs.rttPs >= 0 && (rs.rttPs < this.minRttPs || expired)) {
      this.minRttPs = rs.rttPs;
      this.minRttStampPs = rs.nowPs;
    }
    if (expired && !this.idleRestart && this.mode !== BBR_PROBE_RTT) {
      this.mode = BBR_PROBE_RTT;
      this.saveCwnd(w);
      this.probeRttDonePs = 0;
    }
    if (this.mode === BBR_PROBE_RTT) {
      if (this.probeRttDonePs === 0 && rs.inflightBytes <= BBR_CWND_MIN_SEGMENTS * w.mss) {
        this.probeRttDonePs = rs.nowPs + BBR_PROBE_RTT_PS;
        this.probeRttRoundDone = false;
        this.nextRttDelivered = rs.totalDelivered;
      } else if (this.probeRttDonePs !== 0) {
        if (this.roundStart) this.probeRttRoundDone = true;
        if (this.probeRttRoundDone) this.checkProbeRttDone(w, rs.nowPs);
      }
    }
    // Restart after idle ends only once an ACK delivers new data.
    if (rs.deliveredBytes > 0) this.idleRestart = false;
  }

  /** tcp_bbr.c bbr_check_probe_rtt_done: after its 200 ms, restart the filter, restore cwnd, back to STARTUP or PROBE_BW. */
  private checkProbeRttDone(w: CcWindow, nowPs: number): void {
    if (this.probeRttDonePs === 0 || nowPs <= this.probeRttDonePs) return;
    this.minRttStampPs = nowPs;
    w.cwnd = Math.max(w.cwnd, this.priorCwnd);
    if (this.fullBwReached) this.resetProbeBw(nowPs);
    else this.mode = BBR_STARTUP;
  }

  private updateGains(): void {
    switch (this.mode) {
      case BBR_STARTUP:
        this.pacingGain = BBR_HIGH_GAIN;
        this.cwndGain = BBR_HIGH_GAIN;
        break;
      case BBR_DRAIN:
        this.pacingGain = BBR_DRAIN_GAIN;
        this.cwndGain = BBR_HIGH_GAIN;
        break;
      case BBR_PROBE_BW:
        this.pacingGain = this.ltUseBw ? 1 : BBR_PACING_GAINS[this.cycleIndex]!;
        this.cwndGain = BBR_CWND_GAIN;
        break;
      default:
        this.pacingGain = 1;
        this.cwndGain = 1;
    }
  }

  /** tcp_bbr.c bbr_set_pacing_rate: in STARTUP only ever up. */
  private setPacingRate(bw: number, gain: number): void {
    if (bw <= 0) return;
    const rate = this.rateOf(bw, gain);
    if (this.fullBwReached || rate > this.pacingBytesPerPs) this.pacingBytesPerPs = rate;
  }

  /** tcp_bbr.c bbr_set_cwnd with bbr_set_cwnd_to_recover_or_restore. */
  private setCwnd(w: CcWindow, rs: RateSample, bw: number): void {
    const mss = w.mss;
    const minCwnd = BBR_CWND_MIN_SEGMENTS * mss;
    if (rs.ackedBytes > 0) {
      let cwnd = w.cwnd;
      if (rs.lostBytes > 0) cwnd = Math.max(cwnd - rs.lostBytes, mss);
      const state = rs.caState;
      let conserve = false;
      if (state === CA_RECOVERY && this.prevCaState !== CA_RECOVERY) {
        this.packetConservation = true;
        this.nextRttDelivered = rs.totalDelivered;
        cwnd = rs.inflightBytes + rs.ackedBytes;
      } else if (this.prevCaState >= CA_RECOVERY && state < CA_RECOVERY) {
        cwnd = Math.max(cwnd, this.priorCwnd);
        this.packetConservation = false;
      }
      this.prevCaState = state;
      if (this.packetConservation) {
        // Packet conservation skips the 4-packet floor, as bbr_set_cwnd's goto done does.
        cwnd = Math.max(cwnd, rs.inflightBytes + rs.ackedBytes);
        conserve = true;
      }
      if (!conserve) {
        // bbr_set_cwnd: BDP x gain, plus the aggregation allowance, then the quantization budget.
        const target = this.inflightTarget(mss, bw, this.cwndGain, this.aggregationCwnd());
        if (this.fullBwReached) cwnd = Math.min(cwnd + rs.ackedBytes, target);
        else if (cwnd < target || rs.totalDelivered < TCP_INIT_CWND * mss) cwnd += rs.ackedBytes;
        cwnd = Math.max(cwnd, minCwnd);
      }
      w.cwnd = cwnd;
    }
    if (this.mode === BBR_PROBE_RTT) w.cwnd = Math.min(w.cwnd, minCwnd);
  }
}
