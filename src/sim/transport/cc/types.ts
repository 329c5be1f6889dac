/**
 * The interface every TCP congestion control implements, after Linux's struct tcp_congestion_ops
 * (include/net/tcp.h) and ns-3's TcpCongestionOps: the sender owns the windows and calls these
 * hooks; one flavour per file (reno.ts, cubic.ts, dctcp.ts, bbr.ts). Windows are in bytes.
 */
export type CcName = 'reno' | 'cubic' | 'dctcp' | 'bbr';
export const CC_NAMES: readonly CcName[] = ['reno', 'cubic', 'dctcp', 'bbr'];

/** The sender's windows, shared with its congestion control (Linux snd_cwnd, snd_ssthresh). */
export interface CcWindow {
  cwnd: number;
  ssthresh: number;
  readonly mss: number;
}

/**
 * One ACK's delivery-rate sample (Linux struct rate_sample, net/ipv4/tcp_rate.c), in bytes and ps,
 * plus the sender state cong_control sees. One object per connection, rewritten on every ACK.
 */
export interface RateSample {
  nowPs: number;
  /** Bytes newly acknowledged or SACKed by this ACK. */
  ackedBytes: number;
  /** Bytes delivered over the sample's interval (rs->delivered); -1 when there is no sample. */
  deliveredBytes: number;
  /** rs->interval_us: max(send interval, ACK interval) of the sample. */
  intervalPs: number;
  /** tp->delivered when the newest delivered packet was sent (rs->prior_delivered). */
  priorDelivered: number;
  isAppLimited: boolean;
  /** Bytes newly marked lost by this ACK (rs->losses). */
  lostBytes: number;
  /** RTT of the newest delivered packet (rs->rtt_us), -1 if none. */
  rttPs: number;
  /** Bytes in flight after this ACK (tcp_packets_in_flight). */
  inflightBytes: number;
  /** tp->delivered: every byte ever acknowledged or SACKed. */
  totalDelivered: number;
  /** Linux icsk_ca_state as the sender sees it: 0 Open, 1 Recovery (fast recovery), 2 Loss (after a timeout). */
  caState: number;
  mss: number;
}

export interface CongestionControl {
  readonly name: CcName;
  /** Data packets carry ECT (DCTCP). */
  readonly ecnCapable: boolean;
  /** Linux cong_control (BBR): owns cwnd and pacing on every ACK; the sender's loss rules leave cwnd alone. */
  readonly controlsWindow: boolean;
  /** Pacing rate in payload bytes per ps (Linux sk_pacing_rate); Infinity: unpaced. */
  readonly pacingBytesPerPs: number;
  /** The sender should mark its delivery-rate samples app-limited (BBR in PROBE_RTT sets tp->app_limited). */
  readonly holdsAppLimited: boolean;
  /** Linux ssthresh(sk): the slow-start threshold after a loss (fast retransmit, RACK, timeout), from the windows alone. */
  ssthresh(w: CcWindow): number;
  /** Linux cong_avoid(): slow start and congestion avoidance on newly acknowledged bytes, outside recovery. */
  congAvoid(w: CcWindow, ackedBytes: number, nowPs: number, srttPs: number, minRttPs: number): void;
  /** Linux in_ack_event(): an ACK arrived, before the sender processes it (DCTCP's ECN bookkeeping). */
  inAckEvent(
    w: CcWindow,
    ack: number,
    sndUna: number,
    sndMax: number,
    ece: boolean,
    inRecovery: boolean,
  ): void;
  /** Linux cong_control(): after the sender processed an ACK, with its rate sample (BBR). */
  congControl(w: CcWindow, rs: RateSample): void;
  /** Linux set_state(TCP_CA_Recovery): fast recovery begins (after ssthresh()). */
  onRecoveryStart(w: CcWindow, rs: RateSample): void;
  /** Linux set_state(TCP_CA_Loss): a retransmission timeout (after ssthresh()). */
  onTimeout(w: CcWindow): void;
  /**
   * Linux cwnd_event(CA_EVENT_TX_START) (tcp_output.c tcp_event_data_sent): a data packet is about to
   * leave with nothing in flight; `appLimited` is tp->app_limited (the sender ran out of data before).
   */
  onTxStart(w: CcWindow, nowPs: number, appLimited: boolean): void;
}

/** No-op hooks, for flavours that use only some of them. */
export abstract class BaseCongestionControl implements CongestionControl {
  abstract readonly name: CcName;
  readonly ecnCapable: boolean = false;
  readonly controlsWindow: boolean = false;
  readonly pacingBytesPerPs: number = Infinity;
  get holdsAppLimited(): boolean {
    return false;
  }
  abstract ssthresh(w: CcWindow): number;
  abstract congAvoid(w: CcWindow, ackedBytes: number, nowPs: number, srttPs: number, minRttPs: number): void;
  inAckEvent(
    _w: CcWindow,
    _ack: number,
    _sndUna: number,
    _sndMax: number,
    _ece: boolean,
    _inRecovery: boolean,
  ): void {}
  congControl(_w: CcWindow, _rs: RateSample): void {}
  onRecoveryStart(_w: CcWindow, _rs: RateSample): void {}
  onTimeout(_w: CcWindow): void {}
  onTxStart(_w: CcWindow, _nowPs: number, _appLimited: boolean): void {}
}
