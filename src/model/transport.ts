/**
 * What makes TCP and RDMA differ, one named term each (docs/models.md, "Transport"):
 * wire efficiency (headers), collective-library efficiency, TCP's per-stream CPU limit times streams,
 * host staging without GPUDirect, TCP throughput under loss (Mathis), and per-message latency.
 * Bandwidths are payload bytes per second per NIC, in GB/s (1e9).
 */
import { pcieBandwidthGBps, type Cluster, type FabricSpec } from '../spec/index.js';

/** IP 20 + TCP 20 + timestamp option 12 bytes inside the MTU (RFC 791, 793, 7323). */
export const TCP_IP_HEADER_BYTES = 52;

/**
 * Host-memory touches per payload byte on each side when data is staged through host memory.
 * Kernel TCP: GPU writes host buffer, the socket copy reads it and writes the kernel buffer, the NIC
 * reads it (4). RDMA without GPUDirect: GPU writes the bounce buffer, the NIC reads it (2).
 * GPUDirect RDMA: none. Devmem TCP (GPUDirect-TCPX, TCPXO): the NIC moves payload to and from GPU
 * memory and the host sees headers only: none. (NVIDIA GPUDirect RDMA documentation; Linux
 * tcp_sendmsg copies user data; Linux Documentation/networking/devmem.rst.)
 */
export const HOST_MEMORY_TOUCHES = { tcp: 4, rdmaStaged: 2, gpuDirect: 0 } as const;

/**
 * CPU seconds per GB moved by kernel TCP on one side (copy, checksum with offloads, softirq):
 * one core drives about 30 to 40 Gb/s of single-stream TCP with TSO/GRO (ESnet fasterdata
 * 100G host tuning notes), so about 0.25 core-s per GB. RDMA posts work requests: near zero.
 */
export const TCP_CPU_SECONDS_PER_GB = 0.25;
export const RDMA_CPU_SECONDS_PER_GB = 0.002;

/** Mathis et al. (CCR 1997): TCP Reno throughput <= MSS/RTT x C/sqrt(p), C = sqrt(3/2). */
export const MATHIS_CONSTANT = Math.sqrt(3 / 2);

export interface TransportTerms {
  /** Line rate of one NIC in GB/s (bits / 8). */
  lineRateGBps: number;
  /** Payload share of the wire after per-packet framing. */
  wireEfficiency: number;
  /** Collective library's sustained share of the payload rate. */
  nicEfficiency: number;
  /** TCP: streams x per-stream CPU-limited throughput (GB/s); Infinity for RDMA. */
  streamLimitGBps: number;
  /** TCP: per-stream throughput bound under loss (Mathis), times streams (GB/s); Infinity for RDMA. */
  lossLimitGBps: number;
  /** Host staging bound per NIC when data is copied through host memory (GB/s); Infinity with GPUDirect. */
  stagingLimitGBps: number;
  /** The achievable payload bandwidth per NIC (GB/s): the minimum of the bounds above. */
  achievableGBps: number;
  /** Which bound sets achievableGBps. */
  limitedBy: 'wire' | 'streams' | 'loss' | 'staging';
  /** One message's software latency between hosts (us): kernel stack or verbs. */
  perMessageLatencyUs: number;
  /** Host-memory touches per payload byte on each side. */
  hostMemoryTouchesPerByte: number;
  /** CPU seconds per GB on each side. */
  cpuSecondsPerGB: number;
}

/** Payload bytes per packet and wire bytes per packet for the fabric's framing. */
export function packetBytes(fabric: FabricSpec): { payload: number; wire: number } {
  if (fabric.transport === 'tcp') {
    const payload = fabric.mtuBytes - TCP_IP_HEADER_BYTES;
    return { payload, wire: payload + fabric.headerBytesPerPacket };
  }
  return { payload: fabric.mtuBytes, wire: fabric.mtuBytes + fabric.headerBytesPerPacket };
}

export function wireEfficiency(fabric: FabricSpec): number {
  const { payload, wire } = packetBytes(fabric);
  return payload / wire;
}

/** Per-stream TCP throughput bound under random loss (bits/s), Mathis et al.; Infinity when lossless. */
export function mathisStreamLimitBps(fabric: FabricSpec): number {
  const tcp = fabric.tcp;
  if (!tcp || tcp.lossRate <= 0) return Number.POSITIVE_INFINITY;
  const mssBits = packetBytes(fabric).payload * 8;
  return (mssBits / (tcp.rttUs * 1e-6)) * (MATHIS_CONSTANT / Math.sqrt(tcp.lossRate));
}

export interface TransportContext {
  fabric: FabricSpec;
  gpuDirectRdma: boolean;
  nicsPerNode: number;
  gpusPerNode: number;
  /** PCIe bandwidth between GPU and host per direction (GB/s). */
  pcieGBps: number;
  hostMemoryBandwidthGBps: number;
}

export function transportContext(cluster: Cluster): TransportContext {
  return {
    fabric: cluster.fabric,
    gpuDirectRdma: cluster.gpuDirectRdma,
    nicsPerNode: cluster.nicsPerNode,
    gpusPerNode: cluster.gpusPerNode,
    pcieGBps: pcieBandwidthGBps(cluster.gpu),
    hostMemoryBandwidthGBps: cluster.hostMemoryBandwidthGBps,
  };
}

export function transportTerms(context: TransportContext): TransportTerms {
  const { fabric } = context;
  const lineRateGBps = fabric.lineRateGbps / 8;
  const wire = wireEfficiency(fabric);
  const wireLimit = lineRateGBps * wire * fabric.nicEfficiency;
  const isTcp = fabric.transport === 'tcp';
  const devmem = isTcp && fabric.tcp?.devmem === true;
  const staged = (isTcp && !devmem) || (!isTcp && !context.gpuDirectRdma);
  const touches = !staged
    ? HOST_MEMORY_TOUCHES.gpuDirect
    : isTcp
      ? HOST_MEMORY_TOUCHES.tcp
      : HOST_MEMORY_TOUCHES.rdmaStaged;

  let streamLimit = Number.POSITIVE_INFINITY;
  let lossLimit = Number.POSITIVE_INFINITY;
  if (isTcp && fabric.tcp) {
    streamLimit = (fabric.tcp.streamsPerPeer * fabric.tcp.perStreamGbps) / 8;
    lossLimit = (fabric.tcp.streamsPerPeer * mathisStreamLimitBps(fabric)) / 8 / 1e9;
  }
  let stagingLimit = Number.POSITIVE_INFINITY;
  if (staged) {
    // Both directions run at once in a collective: each NIC's share of host memory bandwidth,
    // divided by the touches per byte sent plus those per byte received; and the GPU's PCIe link.
    const memoryShare = context.hostMemoryBandwidthGBps / context.nicsPerNode / (2 * touches);
    const pcieShare = (context.pcieGBps * context.gpusPerNode) / context.nicsPerNode;
    stagingLimit = Math.min(memoryShare, pcieShare);
  }
  const bounds: [TransportTerms['limitedBy'], number][] = [
    ['wire', wireLimit],
    ['streams', streamLimit],
    ['loss', lossLimit],
    ['staging', stagingLimit],
  ];
  let limitedBy: TransportTerms['limitedBy'] = 'wire';
  let achievable = wireLimit;
  for (const [name, value] of bounds) {
    if (value < achievable) {
      achievable = value;
      limitedBy = name;
    }
  }
  return {
    lineRateGBps,
    wireEfficiency: wire,
    nicEfficiency: fabric.nicEfficiency,
    streamLimitGBps: streamLimit,
    lossLimitGBps: lossLimit,
    stagingLimitGBps: stagingLimit,
    achievableGBps: achievable,
    limitedBy,
    perMessageLatencyUs: fabric.perMessageLatencyUs,
    hostMemoryTouchesPerByte: touches,
    cpuSecondsPerGB: isTcp ? TCP_CPU_SECONDS_PER_GB : RDMA_CPU_SECONDS_PER_GB,
  };
}

/**
 * Probability that one TCP flow of `packets` packets stalls on a retransmission timeout: a loss in
 * the last three packets cannot collect three duplicate ACKs for fast retransmit (RFC 5681), and a
 * lost retransmission waits for the RTO. Linux's tail-loss probe is ignored: a conservative bound.
 */
export function flowTimeoutProbability(lossRate: number, packets: number): number {
  if (lossRate <= 0 || packets <= 0) return 0;
  const tail = 1 - (1 - lossRate) ** Math.min(packets, 3);
  const retransmissionLost = packets * lossRate * lossRate;
  return Math.min(1, tail + retransmissionLost);
}

/**
 * Expected time added by retransmission timeouts to one synchronous collective. NCCL keeps its
 * sockets busy for the whole collective (chunks are pipelined), so each flow is exposed to a tail
 * loss once, at the end, and to lost retransmissions on every packet; the collective waits for its
 * slowest flow, so it stalls one RTO when any flow times out:
 * E = (1 - (1 - q)^flows) x RTO, q = flowTimeoutProbability(p, packets per flow).
 */
export function expectedTimeoutDelayUs(
  fabric: FabricSpec,
  networkSteps: number,
  flows: number,
  bytesPerFlowPerStep: number,
): number {
  const tcp = fabric.tcp;
  if (fabric.transport !== 'tcp' || !tcp || tcp.lossRate <= 0 || networkSteps <= 0 || flows <= 0) return 0;
  const packets = Math.max(1, Math.ceil((networkSteps * bytesPerFlowPerStep) / packetBytes(fabric).payload));
  const perFlow = flowTimeoutProbability(tcp.lossRate, packets);
  const anyFlow = 1 - (1 - perFlow) ** flows;
  return anyFlow * tcp.minRtoMs * 1000;
}
