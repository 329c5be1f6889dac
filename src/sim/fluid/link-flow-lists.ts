/**
 * For every link, the flows crossing it, as one flat Int32Array pool: list l lives at
 * pool[start[l] .. start[l] + count[l]). Links of a ring collective hold zero or one flow most of
 * the time and are emptied and refilled millions of times; one array object per link made every
 * access a pointer chase (plain arrays also churned their backing stores), and the flat pool cut
 * the 4,096-GPU benchmark by about a fifth. A list that outgrows its region moves to a region of
 * twice the size at the end of the pool; when the pool is full it is repacked, so memory stays
 * within twice what the lists hold at their fullest.
 *
 * Fields are public: the max-min filling loops read them directly.
 */
const INITIAL_PER_LINK = 2;
/** The pool starts with room for at least this many entries (chosen: small fabrics skip the first repacks). */
const MIN_POOL_ENTRIES = 1024;

export class LinkFlowLists {
  pool: Int32Array<ArrayBuffer>;
  readonly start: Int32Array;
  readonly capacity: Int32Array;
  readonly count: Int32Array;
  private used: number;

  constructor(linkCount: number) {
    this.start = new Int32Array(linkCount);
    this.capacity = new Int32Array(linkCount).fill(INITIAL_PER_LINK);
    this.count = new Int32Array(linkCount);
    for (let link = 0; link < linkCount; link++) this.start[link] = link * INITIAL_PER_LINK;
    this.used = linkCount * INITIAL_PER_LINK;
    this.pool = new Int32Array(Math.max(MIN_POOL_ENTRIES, 2 * this.used));
  }

  /** Appends `item` to the list of `link` and returns its position there. */
  add(link: number, item: number): number {
    const count = this.count[link]!;
    if (count === this.capacity[link]!) this.relocate(link);
    this.pool[this.start[link]! + count] = item;
    this.count[link] = count + 1;
    return count;
  }

  /** Removes the item at `pos` by moving the last item there; returns the moved item, or -1. */
  removeAt(link: number, pos: number): number {
    const count = this.count[link]! - 1;
    this.count[link] = count;
    if (pos === count) return -1;
    const base = this.start[link]!;
    const last = this.pool[base + count]!;
    this.pool[base + pos] = last;
    return last;
  }

  private relocate(link: number): void {
    const grown = this.capacity[link]! * 2;
    if (this.used + grown > this.pool.length) this.repack(grown);
    const from = this.start[link]!;
    this.pool.copyWithin(this.used, from, from + this.count[link]!);
    this.start[link] = this.used;
    this.capacity[link] = grown;
    this.used += grown;
  }

  /** Copies every list to a fresh pool with room for `extra` more, dropping abandoned regions. */
  private repack(extra: number): void {
    let live = extra;
    for (let link = 0; link < this.start.length; link++) live += this.capacity[link]!;
    const pool = new Int32Array(Math.max(this.pool.length, 2 * live));
    let cursor = 0;
    for (let link = 0; link < this.start.length; link++) {
      const from = this.start[link]!;
      pool.set(this.pool.subarray(from, from + this.count[link]!), cursor);
      this.start[link] = cursor;
      cursor += this.capacity[link]!;
    }
    this.pool = pool;
    this.used = cursor;
  }
}
