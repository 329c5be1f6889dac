/**
 * Public sources shared by the fabric presets. Each preset field names one of these; the
 * calibration ones say which published measurement the value was fitted to.
 */
export const FABRIC_SOURCES = {
  roceHeaders:
    'RoCE v2 framing: Ethernet 14 + IPv4 20 + UDP 8 + IB BTH 12 + ICRC 4 + FCS 4 + preamble 8 + inter-frame gap 12 = 82 B per packet (IBTA Annex A17 RoCEv2; IEEE 802.3)',
  ibHeaders: 'InfiniBand framing: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B per packet (IBTA Architecture Specification vol. 1, ch. 5)',
  tcpHeaders:
    'TCP/IPv4 framing: payload is MTU - 52 (IP 20 + TCP 20 + timestamps 12); wire adds Ethernet 14 + FCS 4 + preamble 8 + gap 12 = 90 B per packet beyond payload (RFC 791, RFC 793, RFC 7323, IEEE 802.3)',
  ibRates: 'InfiniBand data rates after 64b/66b encoding: EDR 100, HDR 200, NDR 400, XDR 800 Gb/s per 4x port (IBTA InfiniBand roadmap)',
  ethernetRates: 'IEEE 802.3 Ethernet data rates 25/100/200/400/800GbE (IEEE 802.3by, 802.3bj, 802.3bs, 802.3df)',
  rdmaMtu: 'RDMA path MTU 4096 B, the largest IB MTU and the NCCL/RoCE deployment recommendation (IBTA; NVIDIA RoCE configuration guides)',
  nicEfficiency:
    'calibrated: 1 EDR NIC per node reaches 12.2 GB/s all_reduce busbw = 0.982 of the 12.42 GB/s payload rate after IB headers (NVIDIA/nccl-tests issue 29, maintainer); the maintainers\' rule of 12/24/46-49 GB/s per 100/200/400G (nccl-tests issue 119) agrees',
  rdmaLatencyIb: 'about 1 us for a small RDMA message on InfiniBand (perftest ib_write_lat typical results; the issue brief: RDMA 1 to 2 us)',
  rdmaLatencyRoce: 'about 1.6 us for a small RDMA message over RoCE v2 (perftest ib_write_lat typical results on ConnectX NICs; RDMA 1 to 2 us)',
  ibSwitchHop: 'about 0.13 us port-to-port on NVIDIA Quantum InfiniBand switches (NVIDIA Quantum/Quantum-2 switch datasheets)',
  ethSwitchHop: 'about 0.4 to 0.6 us port-to-port on data-centre Ethernet switches (NVIDIA Spectrum, Broadcom Tomahawk datasheets, cut-through)',
  tcpLatency:
    'kernel TCP small-message one-way latency of roughly 10 to 25 us on bare metal through syscalls, softirq and wakeups (netperf TCP_RR figures widely reported; issue brief)',
  tcpVirtLatency: 'virtualised TCP adds the vhost/virtio path: tens of us up to 150 us one-way (issue brief; cloud VM netperf TCP_RR reports)',
  tcpStreamsCalibration:
    'calibrated: NCCL over TCP on 100G reaches 4 to 6 GB/s best all_reduce busbw with NCCL_SOCKET_NTHREADS=2 and 4 channels (NVIDIA/nccl issue 450); NCCL bandwidth is the slowest socket times the socket count (NVIDIA/nccl-tests issue 83, maintainer)',
  tcpSocketsDocs:
    'NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD, at most 64; NCCL docs suggest 4 x 4 for generic 100G networks (NCCL user guide, environment variables)',
  tcpLoss: 'intra-data-centre packet drop rates of about 1e-5 to 1e-4 measured by Pingmesh (Guo et al., SIGCOMM 2015)',
  linuxRto: 'Linux TCP_RTO_MIN = 200 ms (include/net/tcp.h)',
  gpuDirect: 'GPUDirect RDMA needs an RDMA NIC (InfiniBand or RoCE) and nvidia-peermem; kernel TCP always stages through host memory (NVIDIA GPUDirect RDMA documentation)',
  pfc: 'lossless Ethernet class with Priority Flow Control (IEEE 802.1Qbb); InfiniBand is lossless by credit-based link-level flow control (IBTA)',
} as const;
