/**
 * A network fabric, described per NIC: what one GPU's (or one NIC's) path to the network can do.
 * Every field is a property users can look up on a datasheet or measure; presets cite their source.
 */
import { z } from 'zod';
import { specObject } from './strict-object.js';

/**
 * tcp: a TCP byte stream (kernel sockets, or GPUDirect-TCPX/TCPXO with devmem); roce: RDMA over
 * Converged Ethernet v2; ib: InfiniBand verbs; efa: AWS Elastic Fabric Adapter (SRD, kernel bypass
 * through libfabric; GPUDirect RDMA on p4d/p5 and later).
 */
export const TransportSchema = z.enum(['tcp', 'roce', 'ib', 'efa']);
export type Transport = z.infer<typeof TransportSchema>;

/** TCP-only behaviour: what the kernel stack and the socket transport do to throughput and tails. */
export const TcpBehaviourSchema = specObject({
  /** Throughput one TCP stream sustains, bounded by one core's copy and protocol work (Gb/s). */
  perStreamGbps: z.number().positive(),
  /** Streams NCCL's socket transport opens per peer: NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD x channels. */
  streamsPerPeer: z.number().int().positive(),
  /** Probability a packet is lost (incast overflow, corruption); 0 on a clean path. */
  lossRate: z.number().min(0).max(0.5),
  /** Minimum retransmission timeout (ms); Linux TCP_RTO_MIN is 200 ms. */
  minRtoMs: z.number().positive(),
  /** Round-trip time between two hosts on an idle path (us). */
  rttUs: z.number().positive(),
  /** A hypervisor's virtual NIC sits on the path (vhost/virtio or SR-IOV without bypass). */
  virtualized: z.boolean(),
  /**
   * Payload moves NIC <-> GPU memory without staging in host memory (GPUDirect-TCPX/TCPXO, Linux
   * devmem TCP); the host only handles headers.
   */
  devmem: z.boolean().default(false),
});
export type TcpBehaviour = z.infer<typeof TcpBehaviourSchema>;

export const FabricSchema = specObject({
  id: z.string().min(1),
  name: z.string().min(1),
  transport: TransportSchema,
  /** Signalling data rate of one NIC port (Gb/s), as sold: 100, 200, 400, 800. */
  lineRateGbps: z.number().positive(),
  /** Largest payload per packet the transport uses (bytes): 4096 for RDMA, 1500 or 9000 for TCP. */
  mtuBytes: z.number().int().min(256),
  /** Bytes of framing per packet on the wire (headers, CRCs, preamble and inter-frame gap). */
  headerBytesPerPacket: z.number().int().min(0),
  /** Software and NIC latency of one message between two hosts (us): kernel stack for TCP, verbs for RDMA. */
  perMessageLatencyUs: z.number().min(0),
  /** Latency added by each switch hop (us). */
  switchHopLatencyUs: z.number().min(0),
  /** Share of payload rate a collective library sustains end to end (pipelining, proxy, flow control). */
  nicEfficiency: z.number().positive().max(1),
  /** GPUDirect RDMA is possible on this fabric (the NIC reads and writes GPU memory directly). */
  gpuDirectRdma: z.boolean(),
  /** The fabric does not drop under congestion (PFC on RoCE, credit flow control on InfiniBand). */
  lossless: z.boolean(),
  /**
   * The network plugin name NCCL's log prints ("NCCL INFO Using network <ncclNet>"): IB for
   * InfiniBand and RoCE, Socket for kernel TCP, Libfabric for EFA, GPUDirectTCPX_v7, FasTrak.
   */
  ncclNet: z.string().min(1),
  tcp: TcpBehaviourSchema.optional(),
  /** Where each value comes from: field name -> public source. */
  sources: z.record(z.string(), z.string()).default({}),
});
export type FabricSpec = z.infer<typeof FabricSchema>;
