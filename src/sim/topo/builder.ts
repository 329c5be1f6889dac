/** Small helper that numbers nodes and cables consistently for every topology builder. */
import type { TopoLink, TopoNode } from './types.js';

/** Key of the directed pair (from, to): from x NODE_KEY_STRIDE + to, unique while node ids stay below it (chosen: a prime above any fabric we build). */
const NODE_KEY_STRIDE = 1_000_003;

export class FabricBuilder {
  readonly nodes: TopoNode[] = [];
  readonly links: TopoLink[] = [];
  /** linkBetween[from * nodeCount + to] is filled lazily through a map (sparse fabrics). */
  private readonly linkIndex = new Map<number, number>();

  addNode(kind: 'host' | 'switch', name: string): number {
    const id = this.nodes.length;
    this.nodes.push({ id, kind, name });
    return id;
  }

  /** One cable: two directed links of the same delay, a->b at rateBps and b->a at reverseRateBps (default the same). Returns the a->b link id. */
  addCable(a: number, b: number, rateBps: number, delayNs: number, reverseRateBps = rateBps): number {
    const forward = this.links.length;
    this.links.push({ id: forward, from: a, to: b, rateBps, delayNs });
    this.links.push({ id: forward + 1, from: b, to: a, rateBps: reverseRateBps, delayNs });
    this.linkIndex.set(a * NODE_KEY_STRIDE + b, forward);
    this.linkIndex.set(b * NODE_KEY_STRIDE + a, forward + 1);
    return forward;
  }

  link(from: number, to: number): number {
    const id = this.linkIndex.get(from * NODE_KEY_STRIDE + to);
    if (id === undefined) throw new Error(`no link from node ${from} to node ${to}`);
    return id;
  }
}

/** Deterministic integer mix (splitmix-style) so ECMP choices spread even for consecutive hashes. */
export function mixHash(value: number, salt: number): number {
  let x = (value ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
