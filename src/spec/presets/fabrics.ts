/** Built-in fabrics, one NIC's view. Every value names its source in FABRIC_SOURCES. */
import type { FabricSpec } from '../fabric.js';
import { FABRIC_SOURCES as S } from './fabric-sources.js';

const RDMA_COMMON_SOURCES = {
  lineRateGbps: S.ethernetRates,
  mtuBytes: S.rdmaMtu,
  nicEfficiency: S.nicEfficiency,
  gpuDirectRdma: S.gpuDirect,
  lossless: S.pfc,
  ncclNet: S.ncclIb,
};

function roce(id: string, lineRateGbps: number): FabricSpec {
  return {
    id,
    name: `RoCE v2 ${lineRateGbps}G`,
    transport: 'roce',
    lineRateGbps,
    mtuBytes: 4096,
    headerBytesPerPacket: 82,
    perMessageLatencyUs: 1.6,
    switchHopLatencyUs: 0.5,
    nicEfficiency: 0.982,
    gpuDirectRdma: true,
    lossless: true,
    ncclNet: 'IB',
    sources: {
      ...RDMA_COMMON_SOURCES,
      headerBytesPerPacket: S.roceHeaders,
      perMessageLatencyUs: S.rdmaLatencyRoce,
      switchHopLatencyUs: S.ethSwitchHop,
    },
  };
}

function infiniband(id: string, generation: string, lineRateGbps: number): FabricSpec {
  return {
    id,
    name: `InfiniBand ${generation} ${lineRateGbps}G`,
    transport: 'ib',
    lineRateGbps,
    mtuBytes: 4096,
    headerBytesPerPacket: 26,
    perMessageLatencyUs: 1.0,
    switchHopLatencyUs: 0.13,
    nicEfficiency: 0.982,
    gpuDirectRdma: true,
    lossless: true,
    ncclNet: 'IB',
    sources: {
      ...RDMA_COMMON_SOURCES,
      lineRateGbps: S.ibRates,
      headerBytesPerPacket: S.ibHeaders,
      perMessageLatencyUs: S.rdmaLatencyIb,
      switchHopLatencyUs: S.ibSwitchHop,
    },
  };
}

/** NVIDIA Spectrum-X: RoCE v2 at 400G on BlueField-3 SuperNICs, adaptive routing across the fabric. */
function spectrumX(): FabricSpec {
  const base = roce('spectrum-x-400g', 400);
  return {
    ...base,
    name: 'NVIDIA Spectrum-X RoCE v2 400G (BlueField-3 SuperNIC, adaptive routing)',
    sources: {
      ...base.sources,
      lineRateGbps: `${S.spectrumX}; ${S.ethernetRates}`,
      lossless: S.spectrumXLossless,
    },
  };
}

interface TcpPresetValues {
  lineRateGbps: number;
  mtuBytes: number;
  perMessageLatencyUs: number;
  perStreamGbps: number;
  streamsPerPeer: number;
  lossRate: number;
  virtualized: boolean;
}

function tcp(id: string, name: string, values: TcpPresetValues): FabricSpec {
  return {
    id,
    name,
    transport: 'tcp',
    lineRateGbps: values.lineRateGbps,
    mtuBytes: values.mtuBytes,
    headerBytesPerPacket: 90,
    perMessageLatencyUs: values.perMessageLatencyUs,
    switchHopLatencyUs: 0.6,
    // The socket transport's own pipelining loss is inside perStreamGbps; no second discount.
    nicEfficiency: 1,
    gpuDirectRdma: false,
    lossless: false,
    ncclNet: 'Socket',
    tcp: {
      perStreamGbps: values.perStreamGbps,
      streamsPerPeer: values.streamsPerPeer,
      lossRate: values.lossRate,
      minRtoMs: 200,
      rttUs: 2 * values.perMessageLatencyUs + 2 * 0.6,
      virtualized: values.virtualized,
      devmem: false,
    },
    sources: {
      lineRateGbps: S.ethernetRates,
      mtuBytes:
        'MTU 9000 (jumbo frames) as recommended for NCCL over sockets; 1500 where jumbo frames are not configured (IEEE 802.3 default)',
      headerBytesPerPacket: S.tcpHeaders,
      perMessageLatencyUs: values.virtualized ? S.tcpVirtLatency : S.tcpLatency,
      switchHopLatencyUs: S.ethSwitchHop,
      nicEfficiency: S.tcpNicEfficiency,
      gpuDirectRdma: S.gpuDirect,
      lossless: S.tcpLossy,
      ncclNet: S.ncclSocket,
      'tcp.perStreamGbps': S.tcpStreamsCalibration,
      'tcp.streamsPerPeer': S.tcpSocketsDocs,
      'tcp.lossRate': S.tcpLoss,
      'tcp.minRtoMs': S.linuxRto,
      'tcp.rttUs': S.tcpRtt,
      'tcp.virtualized': values.virtualized ? S.tcpVirtLatency : S.bareMetal,
      'tcp.devmem': S.hostStaged,
    },
  };
}

/** AWS Elastic Fabric Adapter, one network card: SRD through libfabric and aws-ofi-nccl. */
function efa(id: string, name: string, lineRateGbps: number, rateSource: string): FabricSpec {
  return {
    id,
    name,
    transport: 'efa',
    lineRateGbps,
    mtuBytes: 4096,
    headerBytesPerPacket: 82,
    perMessageLatencyUs: 8,
    switchHopLatencyUs: 0.5,
    nicEfficiency: 0.974,
    gpuDirectRdma: true,
    lossless: false,
    ncclNet: 'Libfabric',
    sources: {
      lineRateGbps: rateSource,
      mtuBytes: S.efaMtu,
      headerBytesPerPacket: S.efaHeaders,
      perMessageLatencyUs: S.efaLatency,
      switchHopLatencyUs: S.efaSwitchHop,
      nicEfficiency: S.efaEfficiency,
      gpuDirectRdma: `${S.efaGpuDirect}; ${S.efaGenerations}`,
      lossless: S.efaLossless,
      ncclNet: S.ncclLibfabric,
    },
  };
}

/** Google Cloud A3 GPU NIC with a GPUDirect TCP plugin: TCP on the wire, payload NIC <-> GPU (devmem). */
function gcpDirectTcp(id: string, name: string, plugin: 'GPUDirectTCPX_v7' | 'FasTrak'): FabricSpec {
  const tcpxo = plugin === 'FasTrak';
  const perMessageLatencyUs = 15;
  return {
    id,
    name,
    transport: 'tcp',
    lineRateGbps: 200,
    mtuBytes: 8244,
    headerBytesPerPacket: 90,
    perMessageLatencyUs,
    switchHopLatencyUs: 0.6,
    nicEfficiency: 1,
    gpuDirectRdma: false,
    lossless: false,
    ncclNet: plugin,
    tcp: {
      perStreamGbps: 11.3,
      streamsPerPeer: 16,
      lossRate: 1e-5,
      minRtoMs: 200,
      rttUs: 2 * perMessageLatencyUs + 2 * 0.6,
      virtualized: true,
      devmem: true,
    },
    sources: {
      lineRateGbps: S.gcpA3Nics,
      mtuBytes: S.gcpMtu,
      headerBytesPerPacket: S.tcpHeaders,
      perMessageLatencyUs: S.gcpLatency,
      switchHopLatencyUs: S.ethSwitchHop,
      nicEfficiency: S.tcpNicEfficiency,
      gpuDirectRdma:
        'no RDMA: GPUDirect-TCPX/TCPXO move payload to GPU memory over TCP (tcp.devmem), not RDMA verbs',
      lossless: S.tcpLossy,
      ncclNet: tcpxo ? S.ncclFastrak : S.ncclTcpx,
      'tcp.perStreamGbps': tcpxo ? S.tcpxoPerStream : S.tcpxPerStream,
      'tcp.streamsPerPeer': tcpxo ? S.tcpxoStreams : S.tcpxPerStream,
      'tcp.lossRate': S.tcpLoss,
      'tcp.minRtoMs': `${S.linuxRto}; not verified for the TCPXO NIC-offloaded stack`,
      'tcp.rttUs': S.tcpRtt,
      'tcp.virtualized': S.gcpVirtualized,
      'tcp.devmem': tcpxo ? S.devmemTcpxo : S.devmemTcpx,
    },
  };
}

export const fabricPresets: readonly FabricSpec[] = [
  tcp('tcp-25g', 'TCP 25GbE (NCCL sockets, MTU 1500)', {
    lineRateGbps: 25,
    mtuBytes: 1500,
    perMessageLatencyUs: 20,
    perStreamGbps: 10,
    streamsPerPeer: 2,
    lossRate: 1e-5,
    virtualized: false,
  }),
  tcp('tcp-100g', 'TCP 100GbE (NCCL sockets, MTU 9000)', {
    lineRateGbps: 100,
    mtuBytes: 9000,
    perMessageLatencyUs: 15,
    perStreamGbps: 10,
    streamsPerPeer: 4,
    lossRate: 1e-5,
    virtualized: false,
  }),
  tcp('tcp-100g-virtualized', 'TCP 100GbE in VMs (virtio/vhost, MTU 1500)', {
    lineRateGbps: 100,
    mtuBytes: 1500,
    perMessageLatencyUs: 60,
    perStreamGbps: 6,
    streamsPerPeer: 4,
    lossRate: 1e-4,
    virtualized: true,
  }),
  tcp('tcp-400g', 'TCP 400GbE (NCCL sockets 4x4, MTU 9000)', {
    lineRateGbps: 400,
    mtuBytes: 9000,
    perMessageLatencyUs: 12,
    perStreamGbps: 12,
    streamsPerPeer: 16,
    lossRate: 1e-5,
    virtualized: false,
  }),
  roce('roce-100g', 100),
  roce('roce-200g', 200),
  roce('roce-400g', 400),
  roce('roce-800g', 800),
  infiniband('ib-edr-100g', 'EDR', 100),
  infiniband('ib-hdr-200g', 'HDR', 200),
  infiniband('ib-ndr-400g', 'NDR', 400),
  infiniband('ib-xdr-800g', 'XDR', 800),
  efa('efa-v2-100g', 'AWS EFA 100G per card (SRD; p4d EFA v1, p5/p5e EFA v2)', 100, S.efaRates),
  efa('efa-v4-400g', 'AWS EFA v4 400G per card (SRD; p6-b200)', 400, S.efaV4Rate),
  gcpDirectTcp('tcpx-200g', 'GCP A3 High GPU NIC 200G, GPUDirect-TCPX (4 per VM)', 'GPUDirectTCPX_v7'),
  gcpDirectTcp('tcpxo-200g', 'GCP A3 Mega GPU NIC 200G, GPUDirect-TCPXO (8 per VM)', 'FasTrak'),
  spectrumX(),
];
