/**
 * Facts read from perftest output (ib_write_bw, ib_read_bw, ib_send_bw, ib_*_lat, ib_atomic_*).
 * Bandwidth figures keep the unit perftest printed and add Gbps for comparison across runs.
 */

export type PerftestVerb = 'write' | 'read' | 'send' | 'atomic';
export type PerftestMeasure = 'bandwidth' | 'latency';
/** As printed in the table header: `--report_gbits` switches MB/sec to Gb/sec. */
export type PerftestBandwidthUnit = 'MB/sec' | 'Gb/sec';

/** The `Key : value` block perftest prints before the test, typed where the value is. */
export interface PerftestHeader {
  device: string | null;
  qpCount: number | null;
  transportType: string | null;
  connectionType: string | null;
  usingSrq: boolean | null;
  txDepth: number | null;
  cqModeration: number | null;
  postList: number | null;
  mtuBytes: number | null;
  /** `IB` or `Ethernet` (RoCE). */
  linkType: string | null;
  gidIndex: number | null;
  maxInlineDataBytes: number | null;
  outstandingReads: number | null;
  rdmaCmQps: boolean | null;
  dataExchangeMethod: string | null;
  /** Every `Key : value` pair as printed, including ones without a typed field above. */
  raw: Record<string, string>;
}

/** One `local address:` or `remote address:` line, with the `GID:` line that follows it on RoCE. */
export interface PerftestQpAddress {
  side: 'local' | 'remote';
  /** 1-based line of the address line in the input. */
  line: number;
  lid: number | null;
  qpn: number | null;
  psn: number | null;
  rkey: number | null;
  vaddr: string | null;
  /** As printed by perftest: 16 colon-separated decimal bytes. */
  gid: string | null;
  /** The same GID as an IPv6 address (IPv4-mapped form for RoCE v2 IPv4 GIDs). */
  gidIpv6: string | null;
}

export interface PerftestBandwidthRow {
  sizeBytes: number;
  iterations: number;
  /** In the printed unit; 0 when perftest did not measure the peak (`-D` runs print 0.00). */
  bwPeak: number;
  bwAverage: number;
  bwPeakGbps: number;
  bwAverageGbps: number;
  msgRateMpps: number;
}

export interface PerftestLatencyRow {
  sizeBytes: number;
  iterations: number;
  tMinUs: number;
  tMaxUs: number;
  tTypicalUs: number;
  /** Older perftest versions print only min, max and typical: the rest are null then. */
  tAvgUs: number | null;
  tStdevUs: number | null;
  p99Us: number | null;
  p999Us: number | null;
}

export interface PerftestRun {
  /** The title line, e.g. `RDMA_Write BW Test`; null when the output was cut before it. */
  title: string | null;
  verb: PerftestVerb | null;
  measure: PerftestMeasure | null;
  bidirectional: boolean;
  /** Two processes' outputs (server and client) interleaved in one file. */
  interleaved: boolean;
  header: PerftestHeader;
  addresses: PerftestQpAddress[];
  bandwidthUnit: PerftestBandwidthUnit | null;
  bandwidthRows: PerftestBandwidthRow[];
  latencyRows: PerftestLatencyRow[];
  /** Highest BW average over the rows, in Gbps; null for latency runs or when no row survived. */
  peakBwAverageGbps: number | null;
}

export interface PerftestFacts {
  runs: PerftestRun[];
}
