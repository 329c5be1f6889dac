/**
 * The data path of one transfer, step by step, for kernel TCP (always staged through host memory)
 * against RoCE v2 with GPUDirect RDMA: copies, context switches, host memory traffic, CPU time.
 * Sources: Linux tcp_sendmsg/tcp_recvmsg copy user data; NCCL's socket transport stages GPU data in
 * host buffers; GPUDirect RDMA lets the NIC DMA to and from GPU memory (NVIDIA GPUDirect RDMA docs).
 */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { fabricPresets, getGpuPreset, pcieBandwidthGBps, type FabricSpec } from '../spec/index.js';
import { transportTerms, type TransportTerms } from './transport.js';

/** Bytes one send() hands to the kernel at a time: a 64 KiB TSO super-segment (Linux GSO_MAX_SIZE default). */
export const TCP_SEND_CHUNK_BYTES = 64 * 1024;

export interface DataPathStep {
  side: 'sender' | 'receiver';
  step: string;
  /** Who does the work: GPU copy engine, CPU, NIC DMA. */
  actor: 'gpu' | 'cpu' | 'nic' | 'kernel';
  /** Times each payload byte is copied by this step. */
  copiesPerByte: number;
  /** Host DRAM bytes read plus written per payload byte. */
  hostMemoryBytesPerByte: number;
  /** User/kernel crossings and thread wake-ups per MiB moved. */
  contextSwitchesPerMiB: number;
}

export interface DataPath {
  fabric: string;
  transport: string;
  gpuDirectRdma: boolean;
  steps: DataPathStep[];
  copiesPerByte: number;
  hostMemoryBytesPerByte: number;
  contextSwitchesPerMiB: number;
  cpuSecondsPerGB: number;
  perMessageLatencyUs: number;
  achievableGBpsPerNic: number;
  limitedBy: TransportTerms['limitedBy'];
}

const syscallsPerMiB = (1024 * 1024) / TCP_SEND_CHUNK_BYTES;

function tcpSteps(): DataPathStep[] {
  return [
    {
      side: 'sender',
      step: 'GPU to host bounce buffer over PCIe (cudaMemcpy D2H or kernel stores)',
      actor: 'gpu',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: 1,
      contextSwitchesPerMiB: 0,
    },
    {
      side: 'sender',
      step: 'send(): syscall, copy user buffer into socket buffers (skb)',
      actor: 'cpu',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: 2,
      contextSwitchesPerMiB: 2 * syscallsPerMiB,
    },
    {
      side: 'sender',
      step: 'TCP/IP stack: segmentation (TSO), checksum offload, qdisc, driver doorbell',
      actor: 'kernel',
      copiesPerByte: 0,
      hostMemoryBytesPerByte: 0,
      contextSwitchesPerMiB: 0,
    },
    {
      side: 'sender',
      step: 'NIC DMA reads the socket buffers from host memory onto the wire',
      actor: 'nic',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: 1,
      contextSwitchesPerMiB: 0,
    },
    {
      side: 'receiver',
      step: 'NIC DMA writes packets into the receive ring in host memory; interrupt, NAPI softirq, GRO, ACKs',
      actor: 'nic',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: 1,
      contextSwitchesPerMiB: syscallsPerMiB,
    },
    {
      side: 'receiver',
      step: 'recv(): wake the receiving thread, syscall, copy socket buffers into the user buffer',
      actor: 'cpu',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: 2,
      contextSwitchesPerMiB: 3 * syscallsPerMiB,
    },
    {
      side: 'receiver',
      step: 'host buffer to GPU over PCIe (cudaMemcpy H2D)',
      actor: 'gpu',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: 1,
      contextSwitchesPerMiB: 0,
    },
  ];
}

function rdmaSteps(gpuDirect: boolean): DataPathStep[] {
  const staging: DataPathStep[] = gpuDirect
    ? []
    : [
        {
          side: 'sender',
          step: 'GPU to host bounce buffer over PCIe (no GPUDirect RDMA)',
          actor: 'gpu',
          copiesPerByte: 1,
          hostMemoryBytesPerByte: 1,
          contextSwitchesPerMiB: 0,
        },
      ];
  const unstaging: DataPathStep[] = gpuDirect
    ? []
    : [
        {
          side: 'receiver',
          step: 'host bounce buffer to GPU over PCIe',
          actor: 'gpu',
          copiesPerByte: 1,
          hostMemoryBytesPerByte: 1,
          contextSwitchesPerMiB: 0,
        },
      ];
  return [
    ...staging,
    {
      side: 'sender',
      step: 'post an RDMA write work request from user space (doorbell write; no syscall)',
      actor: 'cpu',
      copiesPerByte: 0,
      hostMemoryBytesPerByte: 0,
      contextSwitchesPerMiB: 0,
    },
    {
      side: 'sender',
      step: gpuDirect
        ? 'NIC DMA reads GPU memory directly over PCIe peer-to-peer; packetises in hardware'
        : 'NIC DMA reads the host bounce buffer; packetises in hardware',
      actor: 'nic',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: gpuDirect ? 0 : 1,
      contextSwitchesPerMiB: 0,
    },
    {
      side: 'receiver',
      step: gpuDirect
        ? 'NIC DMA writes straight into GPU memory'
        : 'NIC DMA writes into the host bounce buffer',
      actor: 'nic',
      copiesPerByte: 1,
      hostMemoryBytesPerByte: gpuDirect ? 0 : 1,
      contextSwitchesPerMiB: 0,
    },
    {
      side: 'receiver',
      step: 'completion polled from the completion queue by the proxy thread (no interrupt)',
      actor: 'cpu',
      copiesPerByte: 0,
      hostMemoryBytesPerByte: 0,
      contextSwitchesPerMiB: 0,
    },
    ...unstaging,
  ];
}

export function dataPath(fabric: FabricSpec, gpuDirectRdma = fabric.gpuDirectRdma): DataPath {
  const gpu = getGpuPreset('h100-sxm');
  const terms = transportTerms({
    fabric,
    gpuDirectRdma,
    nicsPerNode: 8,
    gpusPerNode: 8,
    pcieGBps: pcieBandwidthGBps(gpu),
    hostMemoryBandwidthGBps: 614,
  });
  const steps = fabric.transport === 'tcp' ? tcpSteps() : rdmaSteps(gpuDirectRdma && fabric.gpuDirectRdma);
  const total = (key: 'copiesPerByte' | 'hostMemoryBytesPerByte' | 'contextSwitchesPerMiB'): number =>
    steps.reduce((sum, step) => sum + step[key], 0);
  return {
    fabric: fabric.id,
    transport: fabric.transport,
    gpuDirectRdma: fabric.transport !== 'tcp' && gpuDirectRdma && fabric.gpuDirectRdma,
    steps,
    copiesPerByte: total('copiesPerByte'),
    hostMemoryBytesPerByte: total('hostMemoryBytesPerByte'),
    contextSwitchesPerMiB: total('contextSwitchesPerMiB'),
    cpuSecondsPerGB: 2 * terms.cpuSecondsPerGB,
    perMessageLatencyUs: fabric.perMessageLatencyUs,
    achievableGBpsPerNic: terms.achievableGBps,
    limitedBy: terms.limitedBy,
  };
}

/** The RDMA counterpart at the same line rate (RoCE v2 preferred), or the TCP one for an RDMA fabric. */
export function counterpartFabric(fabric: FabricSpec): FabricSpec {
  const wanted = fabric.transport === 'tcp' ? ['roce'] : ['tcp'];
  const sameRate = fabricPresets.filter(
    (preset) =>
      wanted.includes(preset.transport) &&
      preset.lineRateGbps === fabric.lineRateGbps &&
      !preset.tcp?.virtualized,
  );
  const fallback = fabricPresets.find(
    (preset) => preset.id === (fabric.transport === 'tcp' ? 'roce-400g' : 'tcp-100g'),
  );
  const match = sameRate[0] ?? fallback;
  if (!match) throw new Error('no counterpart fabric preset');
  return match;
}

export function explainFabric(fabric: FabricSpec): ResultEnvelope<{ paths: DataPath[] }> {
  const other = counterpartFabric(fabric);
  const paths =
    fabric.transport === 'tcp'
      ? [dataPath(fabric), dataPath(other, true)]
      : [dataPath(other), dataPath(fabric)];
  return makeResult('explain', { fabric: fabric.id, comparedWith: other.id }, { paths });
}
