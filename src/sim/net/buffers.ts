/**
 * Switch buffer accounting and PFC decisions. Each switch has one shared pool (buffer per port x
 * ports, less the PFC headroom reserved per ingress port). Lossy packets are admitted per egress
 * queue, either against a static per-port limit or a dynamic threshold alpha x (free shared
 * buffer) (Choudhury and Hahne, IEEE/ACM ToN 1998, the scheme Broadcom and NVIDIA switches use).
 * Lossless packets are counted per ingress port and priority: past the XOFF threshold the port
 * pauses its upstream (IEEE 802.1Qbb) and what keeps arriving goes into that port's headroom;
 * only when the headroom is exhausted (a misconfiguration) is a lossless packet dropped.
 */
import type { Topology } from '../topo/types.js';
import { CLS_LOSSLESS } from '../transport/connection.js';

export interface EcnConfig {
  kminBytes: number;
  kmaxBytes: number;
  pmax: number;
}

export interface PfcConfig {
  /** Headroom reserved per ingress link (indexed by link id; 0 for links into hosts). */
  headroomBytes: Float64Array;
  /** The upstream's response delay per ingress link, in picoseconds. */
  responseDelayPs: Float64Array;
  /** Dynamic XOFF threshold factor on the free shared buffer; 0 selects static XOFF. */
  xoffAlpha: number;
  /** Resume (XON) once the ingress count is this far below XOFF (or empty). */
  resumeOffsetBytes: number;
  /** PFC watchdog (off when absent): detection and restoration times in ps. */
  watchdog?: { timeoutPs: number; restorationPs: number };
}

export interface BufferConfig {
  bufferPerPortBytes: number;
  sharing: 'static' | 'dynamic';
  /** Dynamic threshold alpha for lossy egress queues. */
  dtAlpha: number;
  ecn: EcnConfig | null;
  pfc: PfcConfig | null;
  /** Wire size of the largest data packet: the XON hysteresis and early XOFF use it. */
  mtuWireBytes: number;
}

export const ADMIT_SHARED = 0;
export const ADMIT_HEADROOM = 1;
export const ADMIT_DROP = -1;

export class SwitchBuffers {
  /** Per node: shared pool size and bytes used in it. */
  readonly poolBytes: Float64Array;
  readonly usedBytes: Float64Array;
  /** Per ingress link: lossless bytes in the shared pool and in headroom; pause sent upstream. */
  readonly ingressShared: Float64Array;
  readonly ingressHeadroom: Float64Array;
  readonly pauseSent: Uint8Array;
  private readonly staticXoff: Float64Array;
  private readonly linkTo: Int32Array;

  constructor(
    topology: Topology,
    readonly config: BufferConfig,
    private readonly sendPause: (ingressLink: number, on: boolean) => void,
  ) {
    const nodeCount = topology.nodes.length;
    const linkCount = topology.links.length;
    this.poolBytes = new Float64Array(nodeCount);
    this.usedBytes = new Float64Array(nodeCount);
    this.ingressShared = new Float64Array(linkCount);
    this.ingressHeadroom = new Float64Array(linkCount);
    this.pauseSent = new Uint8Array(linkCount);
    this.staticXoff = new Float64Array(linkCount);
    this.linkTo = new Int32Array(linkCount);
    const ports = new Int32Array(nodeCount);
    const reserved = new Float64Array(nodeCount);
    for (const link of topology.links) {
      this.linkTo[link.id] = link.to;
      ports[link.from] = ports[link.from]! + 1;
      if (config.pfc) reserved[link.to] = reserved[link.to]! + config.pfc.headroomBytes[link.id]!;
    }
    for (const node of topology.nodes) {
      if (node.kind !== 'switch') continue;
      this.poolBytes[node.id] = config.bufferPerPortBytes * ports[node.id]! - reserved[node.id]!;
    }
    // Static XOFF splits the pool evenly among ingress ports so lossless traffic alone cannot fill it.
    for (const link of topology.links) {
      this.staticXoff[link.id] = this.poolBytes[link.to]! / Math.max(1, ports[link.to]!);
    }
  }

  private xoff(node: number, ingress: number): number {
    const alpha = this.config.pfc?.xoffAlpha ?? 0;
    if (alpha > 0) return alpha * (this.poolBytes[node]! - this.usedBytes[node]!);
    return this.staticXoff[ingress]!;
  }

  /** Lossless admission against the ingress counters; may send a pause upstream. */
  admitLossless(node: number, ingress: number, wire: number): number {
    const pfc = this.config.pfc;
    if (!pfc) return this.admitOther(node, wire);
    const threshold = this.xoff(node, ingress);
    let result: number;
    const shared = this.ingressShared[ingress]!;
    if (shared + wire <= threshold && this.usedBytes[node]! + wire <= this.poolBytes[node]!) {
      this.ingressShared[ingress] = shared + wire;
      this.usedBytes[node] = this.usedBytes[node]! + wire;
      result = ADMIT_SHARED;
    } else if (this.ingressHeadroom[ingress]! + wire <= pfc.headroomBytes[ingress]!) {
      this.ingressHeadroom[ingress] = this.ingressHeadroom[ingress]! + wire;
      result = ADMIT_HEADROOM;
    } else {
      result = ADMIT_DROP;
    }
    if (
      this.pauseSent[ingress] === 0 &&
      (this.ingressHeadroom[ingress]! > 0 ||
        this.ingressShared[ingress]! + this.config.mtuWireBytes > threshold)
    ) {
      this.pauseSent[ingress] = 1;
      this.sendPause(ingress, true);
    }
    return result;
  }

  /** Lossy admission of a packet for an egress queue already holding `queueBytes` of its class. */
  admitLossy(node: number, queueBytes: number, wire: number): number {
    const used = this.usedBytes[node]!;
    const pool = this.poolBytes[node]!;
    const fits =
      this.config.sharing === 'static'
        ? queueBytes + wire <= this.config.bufferPerPortBytes && used + wire <= pool
        : queueBytes + wire <= this.config.dtAlpha * (pool - used);
    if (!fits) return ADMIT_DROP;
    this.usedBytes[node] = used + wire;
    return ADMIT_SHARED;
  }

  /** Control frames (ACK, NAK, CNP) only need room in the pool. */
  admitOther(node: number, wire: number): number {
    const used = this.usedBytes[node]!;
    if (used + wire > this.poolBytes[node]!) return ADMIT_DROP;
    this.usedBytes[node] = used + wire;
    return ADMIT_SHARED;
  }

  /** A packet left the switch: free its bytes; resume the upstream when the ingress has drained. */
  release(node: number, cls: number, ingress: number, wire: number): void {
    if (cls !== CLS_LOSSLESS || !this.config.pfc || ingress < 0) {
      this.usedBytes[node] = this.usedBytes[node]! - wire;
      return;
    }
    const inHeadroom = this.ingressHeadroom[ingress]!;
    const fromHeadroom = Math.min(inHeadroom, wire);
    this.ingressHeadroom[ingress] = inHeadroom - fromHeadroom;
    const fromShared = wire - fromHeadroom;
    this.ingressShared[ingress] = this.ingressShared[ingress]! - fromShared;
    this.usedBytes[node] = this.usedBytes[node]! - fromShared;
    if (this.pauseSent[ingress] === 1 && this.ingressHeadroom[ingress] === 0) {
      const shared = this.ingressShared[ingress] ?? 0;
      if (shared <= 0 || shared <= this.xoff(node, ingress) - this.config.pfc.resumeOffsetBytes) {
        this.pauseSent[ingress] = 0;
        this.sendPause(ingress, false);
      }
    }
  }

  /** RED-style ECN marking probability for a queue of `queueBytes` (DCQCN's CP, DCTCP's K). */
  markProbability(queueBytes: number): number {
    const ecn = this.config.ecn;
    if (!ecn || queueBytes <= ecn.kminBytes) return 0;
    if (queueBytes >= ecn.kmaxBytes) return 1;
    return (ecn.pmax * (queueBytes - ecn.kminBytes)) / (ecn.kmaxBytes - ecn.kminBytes);
  }
}
