/** Facts read from iperf3 output, text or `-J` JSON. Rates in Gbps (10^9 bits/s), sizes in bytes. */

export type Iperf3Protocol = 'tcp' | 'udp';
export type Iperf3Role = 'client' | 'server';
/** Which end a summary line describes, as iperf3 labels it (`sender`, `receiver`). */
export type Iperf3Side = 'sender' | 'receiver';

export interface Iperf3Stream {
  /** iperf3's stream id: the socket number in brackets, `[  5]`. */
  id: number;
  localHost: string | null;
  localPort: number | null;
  remoteHost: string | null;
  remotePort: number | null;
}

/** One measured interval or one end-of-test summary, for one stream or for the [SUM] of all. */
export interface Iperf3Measurement {
  /** Stream id, or 'sum' for the `[SUM]` line (or the JSON `sum`). */
  stream: number | 'sum';
  startS: number;
  endS: number;
  transferBytes: number;
  rateGbps: number;
  /** TCP sender only (`Retr` column, JSON `retransmits`). */
  retransmits: number | null;
  /** TCP sender intervals only (`Cwnd` column, JSON `snd_cwnd`). */
  cwndBytes: number | null;
  /** UDP: measured at the receiver. */
  jitterMs: number | null;
  lostDatagrams: number | null;
  totalDatagrams: number | null;
  /** Summary lines only: which end the figures come from; null when the line does not say. */
  side: Iperf3Side | null;
  /** Interval in the `-O` omit period. */
  omitted: boolean;
}

export interface Iperf3Total {
  /** Total rate the sender achieved ([SUM] sender line, or JSON end.sum_sent); null when absent (server output). */
  sentGbps: number | null;
  /** Total rate that arrived at the receiver (the figure to judge a link by). */
  receivedGbps: number | null;
  retransmits: number | null;
  jitterMs: number | null;
  lostDatagrams: number | null;
  totalDatagrams: number | null;
  /** lost / total in percent, null when not UDP or no datagrams. */
  lossPercent: number | null;
}

export interface Iperf3Facts {
  format: 'text' | 'json';
  /** Which side printed this output; null when the output was cut before it says. */
  role: Iperf3Role | null;
  protocol: Iperf3Protocol | null;
  /** `-R`: the server sends, the client receives. */
  reverse: boolean;
  version: string | null;
  streams: Iperf3Stream[];
  intervals: Iperf3Measurement[];
  summaries: Iperf3Measurement[];
  total: Iperf3Total;
  /** `iperf Done.` (text) or an `end` object (JSON) was seen: the test ran to its end. */
  complete: boolean;
  /** iperf3's own error lines (`iperf3: error - ...`, JSON `error`). */
  errors: string[];
}
