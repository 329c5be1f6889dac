/**
 * Min-heap of (fair share, link) pairs for progressive filling. Entries are never updated in
 * place: a link whose share changed is pushed again and the old entry is recognised as stale when
 * popped (its key no longer equals the link's current share). Ties go to the lower link index so
 * the filling order, and hence every float rounding, depends only on the input.
 */
export class LinkShareHeap {
  private keys: Float64Array;
  private links: Int32Array;
  size = 0;

  constructor(initialCapacity = 256) {
    this.keys = new Float64Array(initialCapacity);
    this.links = new Int32Array(initialCapacity);
  }

  clear(): void {
    this.size = 0;
  }

  push(share: number, link: number): void {
    if (this.size === this.keys.length) {
      const keys = new Float64Array(this.size * 2);
      keys.set(this.keys);
      const links = new Int32Array(this.size * 2);
      links.set(this.links);
      this.keys = keys;
      this.links = links;
    }
    const keys = this.keys;
    const ids = this.links;
    let index = this.size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentKey = keys[parent]!;
      if (parentKey < share || (parentKey === share && ids[parent]! < link)) break;
      keys[index] = parentKey;
      ids[index] = ids[parent]!;
      index = parent;
    }
    keys[index] = share;
    ids[index] = link;
  }

  topShare(): number {
    return this.keys[0]!;
  }

  topLink(): number {
    return this.links[0]!;
  }

  pop(): void {
    const keys = this.keys;
    const ids = this.links;
    const size = --this.size;
    if (size === 0) return;
    const key = keys[size]!;
    const link = ids[size]!;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      const right = child + 1;
      if (
        right < size &&
        (keys[right]! < keys[child]! || (keys[right] === keys[child] && ids[right]! < ids[child]!))
      ) {
        child = right;
      }
      const childKey = keys[child]!;
      if (key < childKey || (key === childKey && link < ids[child]!)) break;
      keys[index] = childKey;
      ids[index] = ids[child]!;
      index = child;
    }
    keys[index] = key;
    ids[index] = link;
  }
}
