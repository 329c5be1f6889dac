/**
 * Public sources shared by the fabric presets. Each preset field names one of these; the
 * calibration ones say which published measurement the value was fitted to.
 */
export const FABRIC_SOURCES = {
  roceHeaders:
    'RoCE v2 framing: Ethernet 14 + IPv4 20 + UDP 8 + IB BTH 12 + ICRC 4 + FCS 4 + preamble 8 + inter-frame gap 12 = 82 B per packet (IBTA Annex A17 RoCEv2; IEEE 802.3)',
  ibHeaders:
    'InfiniBand framing: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B per packet (IBTA Architecture Specification vol. 1, ch. 5)',
  tcpHeaders:
    'TCP/IPv4 framing: payload is MTU - 52 (IP 20 + TCP 20 + timestamps 12); wire adds Ethernet 14 + FCS 4 + preamble 8 + gap 12 = 90 B per packet beyond payload (RFC 791, RFC 793, RFC 7323, IEEE 802.3)',
  ibRates:
    'InfiniBand data rates after 64b/66b encoding: EDR 100, HDR 200, NDR 400, XDR 800 Gb/s per 4x port (IBTA InfiniBand roadmap)',
  ethernetRates:
    'IEEE 802.3 Ethernet data rates 25/100/200/400/800GbE (IEEE 802.3by, 802.3bj, 802.3bs, 802.3df)',
  rdmaMtu:
    'RDMA path MTU 4096 B, the largest IB MTU and the NCCL/RoCE deployment recommendation (IBTA; NVIDIA RoCE configuration guides)',
  nicEfficiency:
    "calibrated: 1 EDR NIC per node reaches 12.2 GB/s all_reduce busbw = 0.982 of the 12.42 GB/s payload rate after IB headers (NVIDIA/nccl-tests issue 29, maintainer); the maintainers' rule of 12/24/46-49 GB/s per 100/200/400G (nccl-tests issue 119) agrees",
  rdmaLatencyIb:
    'about 1 us for a small RDMA message on InfiniBand (perftest ib_write_lat typical results; the issue brief: RDMA 1 to 2 us)',
  rdmaLatencyRoce:
    'about 1.6 us for a small RDMA message over RoCE v2 (perftest ib_write_lat typical results on ConnectX NICs; RDMA 1 to 2 us)',
  ibSwitchHop:
    'about 0.13 us port-to-port on NVIDIA Quantum InfiniBand switches (NVIDIA Quantum/Quantum-2 switch datasheets)',
  ethSwitchHop:
    'about 0.4 to 0.6 us port-to-port on data-centre Ethernet switches (NVIDIA Spectrum, Broadcom Tomahawk datasheets, cut-through)',
  tcpLatency:
    'kernel TCP small-message one-way latency of roughly 10 to 25 us on bare metal through syscalls, softirq and wakeups (netperf TCP_RR figures widely reported; issue brief)',
  tcpVirtLatency:
    'virtualised TCP adds the vhost/virtio path: tens of us up to 150 us one-way (issue brief; cloud VM netperf TCP_RR reports)',
  tcpStreamsCalibration:
    'calibrated: NCCL over TCP on 100G reaches 4 to 6 GB/s best all_reduce busbw with NCCL_SOCKET_NTHREADS=2 and 4 channels (NVIDIA/nccl issue 450); NCCL bandwidth is the slowest socket times the socket count (NVIDIA/nccl-tests issue 83, maintainer)',
  tcpSocketsDocs:
    'NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD, at most 64; NCCL docs suggest 4 x 4 for generic 100G networks (NCCL user guide, environment variables)',
  tcpLoss:
    'intra-data-centre packet drop rates of about 1e-5 to 1e-4 measured by Pingmesh (Guo et al., SIGCOMM 2015)',
  linuxRto: 'Linux TCP_RTO_MIN = 200 ms (include/net/tcp.h)',
  gpuDirect:
    'GPUDirect RDMA needs an RDMA NIC (InfiniBand or RoCE) and nvidia-peermem; kernel TCP always stages through host memory (NVIDIA GPUDirect RDMA documentation)',
  pfc: 'lossless Ethernet class with Priority Flow Control (IEEE 802.1Qbb); InfiniBand is lossless by credit-based link-level flow control (IBTA)',
  ncclIb:
    'NCCL names its verbs transport "IB" for InfiniBand and RoCE alike (NVIDIA/nccl src/transport/net_ib.cc: ncclNet_t ncclNetIb = { "IB", ... }); the log prints "NCCL INFO Using network IB"',
  ncclSocket:
    'NCCL names its kernel-socket transport "Socket" (NVIDIA/nccl src/transport/net_socket.cc: ncclNet_t ncclNetSocket = { "Socket", ... }); the log prints "NCCL INFO Using network Socket"',
  ncclLibfabric:
    'aws-ofi-nccl names itself "Libfabric" from v1.12 on; v1.11.0 and earlier (or NCCL_NET="AWS Libfabric") print "AWS Libfabric" (aws/aws-ofi-nccl src/nccl_ofi_interface_nvidia.cpp, ncclNetPlugin_v* .name and nvidia_plugin_name_fixup); logs read "NCCL INFO Using network Libfabric" or "... AWS Libfabric" (aws-samples/awsome-distributed-training EFA nccl-tests READMEs)',
  ncclTcpx:
    'google/nccl-plugin-gpudirecttcpx src/nccl_plugin.cc: ncclNetPlugin_v7 = { "GPUDirectTCPX_v7", ... }, so NCCL prints "Using network GPUDirectTCPX_v7"; its debug lines start NET/GPUDirectTCPX',
  ncclFastrak:
    'google/nccl-plugin-gpudirect-tcpxo tcpdirect_plugin/fastrak_offload/fastrak_plugin.cc: ncclNetPlugin_v7 = { "FasTrak", ... }; init logs "Initializing network FasTrak"',
  tcpNicEfficiency:
    "the socket transport's own pipelining loss sits in tcp.perStreamGbps, so no second discount: 1",
  tcpLossy:
    'ordinary Ethernet drops under congestion and TCP recovers by retransmission (RFC 5681); no PFC class for TCP',
  tcpRtt: 'derived: 2 x perMessageLatencyUs + 2 x one switch hop (ethSwitchHop)',
  bareMetal: 'bare metal: no hypervisor NIC on the path',
  hostStaged: 'kernel TCP copies every payload byte through host socket buffers (no devmem)',
  efaRates:
    'EFA per network card: p4d.24xlarge 4 x 100 Gb/s EFA (aws-samples/aws-efa-eks README: "4x100 Gbps EFA"); P5/P5e up to 32 network cards and 3,200 Gb/s = 100 Gb/s each (AWS EC2 User Guide, "Maximize network bandwidth on accelerated computing instances with EFA")',
  efaV4Rate:
    'p6-b200.48xlarge: 8 x 400 Gb/s EFA (shared/data/reference-points.md, from stas00/ml-engineering network/README.md; public pplx-garden B200 EFA notes "EFA 400Gb/s x 8 per node"); AWS EC2 User Guide "Elastic Fabric Adapter", Supported instance types: p6-b200 is Nitro v6 (EFA v4)',
  efaGenerations:
    'AWS EC2 User Guide "Elastic Fabric Adapter", Supported instance types: p4d/p4de Nitro v3 (EFA v1, RDMA read only), p5/p5e Nitro v4 (EFA v2, RDMA read and write), p5en Nitro v5 (EFA v3), p6-b200 Nitro v6 (EFA v4)',
  efaGpuDirect:
    'GPUDirect RDMA over EFA needs RDMA read (p4d and later) and aws-ofi-nccl; logs show "via NET/Libfabric/<n>/GDRDMA" (AWS EC2 User Guide EFA supported instance types; aws-samples EFA nccl-tests READMEs)',
  efaMtu:
    "not verified: EFA's SRD packet size is not published; 4096 B assumed as for the other RDMA presets",
  efaHeaders:
    'not verified: SRD framing is not published; Ethernet + IPv4 + UDP-sized framing of 82 B per packet assumed as for RoCE v2',
  efaLatency:
    'calibration guess: no public per-message EFA latency was found; the collective model uses efaMessageUs fitted to the EFA logs of its corpus instead (src/model/fitted.ts, bench/model-validation.mjs)',
  efaSwitchHop:
    'not verified: the AWS network is opaque; one data-centre Ethernet hop assumed (ethSwitchHop)',
  efaEfficiency:
    'calibrated: 4 nodes x 8 B200 on 8 x 400G EFA reach 381.8 GB/s all_reduce busbw at 16 GiB (shared/data/reference-points.md, stas00/ml-engineering) = 0.974 of the 392.2 GB/s payload rate per node after 82 B per 4096 B packet; applied to EFA v2 as well (same SRD stack, not separately calibrated)',
  efaLossless:
    'not lossless: SRD runs over AWS\'s lossy Ethernet with no PFC; the EFA NIC sprays packets over many paths and retransmits in hardware (Shalev et al., "A Cloud-Optimized Transport Protocol for Elastic and Scalable HPC", IEEE Micro 2020)',
  gcpA3Nics:
    'Google Cloud "Networking and GPU machines" (compute/docs/gpus/gpu-network-bandwidth): A3 High 1,000 Gb/s total with GPUDirect-TCPX, A3 Mega 1,800 Gb/s with GPUDirect-TCPXO; A3 High has 4 GPU NICs (google/nccl-plugin-gpudirecttcpx README: "A3 VM type 4-NIC networking"), A3 Mega 8 GPU NICs (NVIDIA AI Cluster Runtime "GKE TCPXO Networking Prerequisites": 8 GPU NICs per a3-megagpu-8g), each 200 Gb/s, plus one 200 Gb/s host gVNIC (1,000 = 5 x 200; 1,800 = 9 x 200)',
  gcpMtu:
    "MTU 8244 on the A3 GPU VPC networks, as Google's A3 setup guides create them (gcloud compute networks create ... --mtu=8244)",
  gcpVirtualized: 'A3 machines are VMs whose NICs are virtual (gVNIC); counted as virtualized',
  devmemTcpx:
    'GPUDirect-TCPX: the NIC writes payload straight into GPU memory (header split, Linux devmem TCP) and reads it from there; the host handles headers only (google/nccl-plugin-gpudirecttcpx; Google Cloud GPUDirect-TCPX docs)',
  devmemTcpxo:
    'GPUDirect-TCPXO (FasTrak) offloads the TCP data path to the NIC and moves payload NIC <-> GPU without host staging (google/nccl-plugin-gpudirect-tcpxo: DXS offload client, buffer manager daemon)',
  tcpxoStreams:
    'FASTRAK_NUM_FLOWS defaults to 2 flows per NCCL connection (google/nccl-plugin-gpudirect-tcpxo const_params.h) x 8 NCCL channels assumed = 16: the channel count is a calibration guess',
  tcpxoPerStream:
    'calibrated: 2 x a3-megagpu-8g (16 H100) all_reduce busbw 338.8 GB/s at 8 GiB (lessizzmore/create-a3mega-ztan-fork @ 02dd8f45 ztan-NCCL-test-result, an A3 Mega setup repository; the log itself does not name the plugin); on 2 nodes NCCL runs tree, so each node sends the 8 GiB once per direction in 47.5 ms = 180.7 GB/s over 8 NICs = 180.7 Gb/s per NIC = 16 streams x 11.3 Gb/s',
  tcpxPerStream:
    'calibration guess: no verified public A3 High (TCPX) nccl-tests figure was found; the per-flow rate of the TCPXO calibration (11.3 Gb/s x 16) is reused',
  gcpLatency:
    'calibration guess: no public per-message latency for GPUDirect-TCPX/TCPXO was found; taken as the bare-metal kernel TCP figure (tcpLatency), not the virtio one, since the data path bypasses the host copy',
  spectrumX:
    'NVIDIA Spectrum-X: Spectrum-4 switches with BlueField-3 SuperNICs at 400 Gb/s per GPU, RoCE v2 with adaptive routing (per-packet spraying) and congestion control (NVIDIA Spectrum-X Networking Platform datasheet; BlueField-3 SuperNIC datasheet)',
  spectrumXLossless:
    'Spectrum-X runs RoCE v2 on a lossless class (PFC) with its congestion control (NVIDIA Spectrum-X reference architecture); IEEE 802.1Qbb',
} as const;
