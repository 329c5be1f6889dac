/**
 * Periodic samples for the result's series: queue bytes of every switch egress port, cumulative
 * paused time of every link, cumulative delivered bytes. A bounded store: when it is full, every
 * other sample is dropped and the interval doubles, so a run of any length keeps at most
 * `capacity` evenly spaced samples (deterministic: it depends only on simulated time).
 */
export class Sampler {
  intervalPs: number;
  count = 0;
  readonly times: Float64Array;
  readonly queues: Float64Array;
  readonly paused: Float64Array;
  readonly delivered: Float64Array;
  /** Delivered bytes of the first `connCount` connections (per-flow goodput). */
  readonly connDelivered: Float64Array;

  constructor(
    readonly linkCount: number,
    initialIntervalPs: number,
    readonly connCount = 0,
    readonly capacity = 256,
  ) {
    this.intervalPs = initialIntervalPs;
    this.times = new Float64Array(capacity);
    this.queues = new Float64Array(capacity * linkCount);
    this.paused = new Float64Array(capacity * linkCount);
    this.delivered = new Float64Array(capacity);
    this.connDelivered = new Float64Array(capacity * connCount);
  }

  /** Room for one more sample (decimating if needed); returns its row. */
  row(): number {
    if (this.count === this.capacity) this.decimate();
    return this.count++;
  }

  private decimate(): void {
    const half = this.capacity >> 1;
    const n = this.linkCount;
    for (let i = 0; i < half; i++) {
      const from = 2 * i + 1;
      this.times[i] = this.times[from]!;
      this.delivered[i] = this.delivered[from]!;
      this.queues.copyWithin(i * n, from * n, from * n + n);
      this.paused.copyWithin(i * n, from * n, from * n + n);
      const c = this.connCount;
      this.connDelivered.copyWithin(i * c, from * c, from * c + c);
    }
    this.count = half;
    this.intervalPs *= 2;
  }
}
