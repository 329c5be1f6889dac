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
 * NCCL's socket transport sends each network request as a 4-byte size on a control socket, then the
 * data split over its sockets in tasks of at least 64 KiB (NVIDIA/nccl src/transport/net_socket.cc:
 * MIN_CHUNKSIZE, ncclSocketTest `taskSize = max(MIN_CHUNKSIZE, DIVUP(size, nSocks))`). GPUDirect-TCPX
 * derives from it; the same split is assumed for TCPXO, whose plugin is not public.
 */
export const NCCL_SOCKET_MIN_TASK_BYTES = 64 * 1024;
/**
 * One network request per NCCL step: NCCL_BUFFSIZE (4 MiB) over NCCL_STEPS (8) slots, 512 KiB for the
 * Simple protocol (NVIDIA/nccl src/include/device.h NCCL_STEPS, src/init.cc DEFAULT_BUFFSIZE).
 */
export const NCCL_NET_REQUEST_BYTES = 512 * 1024;
/**
 * Linux's tail-loss probe fires 2 x SRTT + TCP_TIMEOUT_MIN_US (2 ms) after the last send when two or
 * more packets are out; with one packet out it waits 2 x SRTT + the minimum RTO, capped by the RTO
 * itself (net/ipv4/tcp_output.c tcp_schedule_loss_probe, include/net/tcp.h; RFC 8985 section 7.2).
 */
export const TLP_TIMEOUT_MIN_US = 2000;

/** How one synchronous step's data leaves one NCCL network connection, for the loss term. */
export interface StepBursts {
  /** Data sockets the step's requests use. */
  sockets: number;
  /** Packets each of them sends in the step. */
  packetsPerSocket: number;
  /** Requests (one control packet each) in the step. */
  requests: number;
}

/**
 * NCCL's split of `bytes` (one connection, one step) over requests and sockets (see the constants above):
 * the tasks of successive requests go round-robin over the sockets (ncclSocketGetTask's nextFd), so a
 * step uses as many sockets as it has 64 KiB tasks, up to the fabric's streams.
 */
export function stepBursts(bytes: number, streams: number, payloadBytes: number): StepBursts {
  const requests = Math.max(1, Math.ceil(bytes / NCCL_NET_REQUEST_BYTES));
  const sockets = Math.max(1, Math.min(Math.max(1, streams), Math.ceil(bytes / NCCL_SOCKET_MIN_TASK_BYTES)));
  const packetsPerSocket = Math.max(1, Math.ceil(bytes / sockets / payloadBytes));
  return { sockets, packetsPerSocket, requests };
}

/**
 * Probabilities that one step of one connection stalls, under Linux's RACK-TLP (RFC 8985): a loss with
 * later packets on its socket is repaired within about a round trip (RACK); the last packet of a
 * socket's burst lost is repaired by the tail-loss probe (`tlp`) when the burst had two or more packets,
 * and waits for the retransmission timeout (`rto`) when it was alone, as is a lost retransmission
 * (about one per packet times the loss rate).
 */
export function stepStallProbabilities(lossRate: number, bursts: StepBursts): { rto: number; tlp: number } {
  if (lossRate <= 0) return { rto: 0, tlp: 0 };
  const { sockets, packetsPerSocket, requests } = bursts;
  const loneTails = (packetsPerSocket <= 1 ? sockets : 0) + (requests <= 1 ? 1 : 0);
  const probedTails = (packetsPerSocket > 1 ? sockets : 0) + (requests > 1 ? 1 : 0);
  const retransmissionsLost = (sockets * packetsPerSocket + requests) * lossRate * lossRate;
  return {
    rto: Math.min(1, loneTails * lossRate + retransmissionsLost),
    tlp: Math.min(1, probedTails * lossRate),
  };
}

/** nccl-tests' timed iterations per size when -n is not given (NVIDIA/nccl-tests src/common.cu, `iters = 20`). */
export const NCCL_TESTS_DEFAULT_ITERS = 20;

/** The median of a binomial count of `trials` trials with probability `q` each (exact, by its distribution). */
export function binomialMedian(trials: number, q: number): number {
  if (trials <= 0 || q <= 0) return 0;
  if (q >= 1) return trials;
  const logRatio = Math.log(q) - Math.log1p(-q);
  let logPmf = trials * Math.log1p(-q);
  let cumulative = 0;
  for (let k = 0; k < trials; k++) {
    cumulative += Math.exp(logPmf);
    // (a tie at one half, as n = 5 with q = 1/2, takes the lower count despite rounding)
    if (cumulative >= 0.5 - 1e-12) return k;
    logPmf += Math.log(trials - k) - Math.log(k + 1) + logRatio;
  }
  return trials;
}

/** What losses add to one synchronous collective: on average, and in a typical printed row. */
export interface LossStalls {
  /** The expectation per call (a training run's long-run average pays this). */
  expectedUs: number;
  /**
   * Per call in the average nccl-tests prints over `iterations` calls, in a typical run (the median
   * count of timeouts and of probes among them): zero while a stall is unlikely within them.
   */
  typicalUs: number;
}

/**
 * Losses in one synchronous collective: each of its `networkSteps` ends with a tail on every
 * connection (NCCL's steps depend on one another, so each burst's last packet is exposed), and the
 * collective waits for its slowest connection, so a call stalls once for a timeout when any connection
 * times out in any step (probability a = 1 - (1 - q_rto)^(steps x F)), and once for a probe likewise
 * (b, with q_tlp): expected a x RTO + b x (2 RTT + 2 ms). `connections` are NCCL's network connections
 * active at once, `bytesPerConnection` what one carries in one step; the streams per connection come
 * from the fabric (tcp.streamsPerPeer).
 */
export function lossStalls(
  fabric: FabricSpec,
  networkSteps: number,
  connections: number,
  bytesPerConnection: number,
  iterations: number = NCCL_TESTS_DEFAULT_ITERS,
): LossStalls {
  const tcp = fabric.tcp;
  if (fabric.transport !== 'tcp' || !tcp || tcp.lossRate <= 0 || networkSteps <= 0 || connections <= 0)
    return { expectedUs: 0, typicalUs: 0 };
  const payload = packetBytes(fabric).payload;
  const timeoutUs = tcp.minRtoMs * 1000;
  const probeUs = 2 * tcp.rttUs + TLP_TIMEOUT_MIN_US;
  const n = Math.max(1, Math.round(iterations));
  const exposures = networkSteps * connections;
  const at = (bytes: number): LossStalls => {
    const { rto, tlp } = stepStallProbabilities(tcp.lossRate, stepBursts(bytes, tcp.streamsPerPeer, payload));
    const a = 1 - (1 - rto) ** exposures;
    const b = 1 - (1 - tlp) ** exposures;
    return {
      expectedUs: a * timeoutUs + b * probeUs,
      typicalUs: (binomialMedian(n, a) * timeoutUs + binomialMedian(n, b) * probeUs) / n,
    };
  };
  // A burst of one packet whose loss waits for the RTO costs more than a burst of two whose tail the
  // probe repairs, so the stall falls where a step first fills a second packet or a second request.
  // A larger message is never modelled as finishing sooner: past those sizes the stall keeps their figure.
  const stalls = [bytesPerConnection, payload, NCCL_NET_REQUEST_BYTES]
    .filter((bytes) => bytes <= bytesPerConnection)
    .map(at);
  return {
    expectedUs: Math.max(...stalls.map((s) => s.expectedUs)),
    typicalUs: Math.max(...stalls.map((s) => s.typicalUs)),
  };
}
