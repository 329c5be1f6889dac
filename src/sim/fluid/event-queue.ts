/**
 * Future events of the fluid engine, grouped by exact time.
 *
 * A collective over thousands of ranks schedules hundreds of events at bit-identical times (every
 * ring hop finishing together). Events are therefore appended to a per-time bucket (a FIFO list in
 * typed arrays), and only buckets go through the binary heap, ordered by (time, creation order) so
 * the processing order never depends on anything but the input. The heap keeps each bucket's time
 * and order beside its id, so sifting reads contiguous memory instead of chasing bucket ids (when
 * flows finish at scattered times the heap is the hottest code, and the indirection cost 40%). A four-entry cache of recently
 * used buckets finds the bucket for a time without a hash map: a batch schedules its follow-ups at
 * a handful of distinct times (now + latency, now + chunk / rate, ...).
 */
import { grownFloat64, grownInt32 } from '../engine/index.js';

const CACHE_SIZE = 4;

export class FluidEventQueue {
  // Events: two int payloads and the next event of the same bucket.
  private evA: Int32Array;
  private evB: Int32Array;
  private evNext: Int32Array;
  private evFree = -1;
  private evUsed = 0;

  // Buckets: first and last event.
  private bucketHead: Int32Array;
  private bucketTail: Int32Array;
  private bucketFree: number[] = [];
  private bucketUsed = 0;
  private nextSeq = 0;

  // Binary heap of buckets: id, time, creation order.
  private heap: Int32Array;
  private heapTime: Float64Array;
  private heapSeq: Float64Array;
  private heapSize = 0;

  private readonly cacheTime = new Float64Array(CACHE_SIZE).fill(Number.NaN);
  private readonly cacheBucket = new Int32Array(CACHE_SIZE).fill(-1);
  private cacheCursor = 0;

  constructor(initialCapacity = 1024) {
    this.evA = new Int32Array(initialCapacity);
    this.evB = new Int32Array(initialCapacity);
    this.evNext = new Int32Array(initialCapacity);
    this.bucketHead = new Int32Array(initialCapacity);
    this.bucketTail = new Int32Array(initialCapacity);
    this.heap = new Int32Array(initialCapacity);
    this.heapTime = new Float64Array(initialCapacity);
    this.heapSeq = new Float64Array(initialCapacity);
  }

  get isEmpty(): boolean {
    return this.heapSize === 0;
  }

  /** Time of the earliest bucket; only valid when not empty. */
  peekTime(): number {
    return this.heapTime[0]!;
  }

  push(timeNs: number, a: number, b: number): void {
    const bucket = this.bucketFor(timeNs);
    const event = this.allocEvent();
    this.evA[event] = a;
    this.evB[event] = b;
    this.evNext[event] = -1;
    const tail = this.bucketTail[bucket]!;
    if (tail < 0) this.bucketHead[bucket] = event;
    else this.evNext[tail] = event;
    this.bucketTail[bucket] = event;
  }

  /**
   * Removes the earliest bucket and returns its first event (-1 if none). Walk the list with
   * `next`, read payloads with `a`/`b`, and hand each event back with `release` after reading it.
   */
  popBucket(): number {
    const bucket = this.heap[0]!;
    const last = --this.heapSize;
    if (last > 0) this.siftDown(this.heap[last]!, this.heapTime[last]!, this.heapSeq[last]!);
    for (let i = 0; i < CACHE_SIZE; i++) {
      if (this.cacheBucket[i] === bucket) {
        this.cacheBucket[i] = -1;
        this.cacheTime[i] = Number.NaN;
      }
    }
    const head = this.bucketHead[bucket]!;
    this.bucketFree.push(bucket);
    return head;
  }

  a(event: number): number {
    return this.evA[event]!;
  }

  b(event: number): number {
    return this.evB[event]!;
  }

  next(event: number): number {
    return this.evNext[event]!;
  }

  release(event: number): void {
    this.evNext[event] = this.evFree;
    this.evFree = event;
  }

  private allocEvent(): number {
    if (this.evFree >= 0) {
      const event = this.evFree;
      this.evFree = this.evNext[event]!;
      return event;
    }
    if (this.evUsed === this.evA.length) {
      const size = this.evA.length * 2;
      this.evA = grownInt32(this.evA, size);
      this.evB = grownInt32(this.evB, size);
      this.evNext = grownInt32(this.evNext, size);
    }
    return this.evUsed++;
  }

  private bucketFor(timeNs: number): number {
    for (let i = 0; i < CACHE_SIZE; i++) {
      if (this.cacheTime[i] === timeNs) return this.cacheBucket[i]!;
    }
    let bucket = this.bucketFree.pop();
    if (bucket === undefined) {
      if (this.bucketUsed === this.bucketHead.length) {
        const size = this.bucketHead.length * 2;
        this.bucketHead = grownInt32(this.bucketHead, size);
        this.bucketTail = grownInt32(this.bucketTail, size);
        this.heap = grownInt32(this.heap, size);
        this.heapTime = grownFloat64(this.heapTime, size);
        this.heapSeq = grownFloat64(this.heapSeq, size);
      }
      bucket = this.bucketUsed++;
    }
    this.bucketHead[bucket] = -1;
    this.bucketTail[bucket] = -1;
    this.siftUp(bucket, timeNs, this.nextSeq++);
    this.cacheTime[this.cacheCursor] = timeNs;
    this.cacheBucket[this.cacheCursor] = bucket;
    this.cacheCursor = (this.cacheCursor + 1) % CACHE_SIZE;
    return bucket;
  }

  /** Inserts bucket (time, seq) at the end of the heap and moves it up. */
  private siftUp(bucket: number, time: number, seq: number): void {
    const { heap, heapTime, heapSeq } = this;
    let index = this.heapSize++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentTime = heapTime[parent]!;
      if (parentTime < time || (parentTime === time && heapSeq[parent]! < seq)) break;
      heap[index] = heap[parent]!;
      heapTime[index] = parentTime;
      heapSeq[index] = heapSeq[parent]!;
      index = parent;
    }
    heap[index] = bucket;
    heapTime[index] = time;
    heapSeq[index] = seq;
  }

  /** Places bucket (time, seq) at the root, whose entry was just removed, and moves it down. */
  private siftDown(bucket: number, time: number, seq: number): void {
    const { heap, heapTime, heapSeq } = this;
    const size = this.heapSize;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      let childTime = heapTime[child]!;
      const right = child + 1;
      if (right < size) {
        const rightTime = heapTime[right]!;
        if (rightTime < childTime || (rightTime === childTime && heapSeq[right]! < heapSeq[child]!)) {
          child = right;
          childTime = rightTime;
        }
      }
      if (time < childTime || (time === childTime && seq < heapSeq[child]!)) break;
      heap[index] = heap[child]!;
      heapTime[index] = childTime;
      heapSeq[index] = heapSeq[child]!;
      index = child;
    }
    heap[index] = bucket;
    heapTime[index] = time;
    heapSeq[index] = seq;
  }
}
