/** A cluster: how many nodes of which GPU, joined by which fabric and topology. */
import { z } from 'zod';
import { presetOrInline, specObject } from './strict-object.js';
import { FabricSchema } from './fabric.js';
import { GpuSchema } from './gpu.js';
import { MAX_GPUS_PER_NODE, MAX_NICS_PER_NODE, MAX_NODES } from '../core/limits.js';
import { DEFAULT_NCCL_VERSION, NCCL_VERSION_FORM } from '../core/nccl-version.js';

export const TopologySchema = z.discriminatedUnion('kind', [
  specObject({ kind: z.literal('single-switch') }),
  specObject({
    kind: z.literal('leaf-spine'),
    /** Downlink to uplink bandwidth ratio at the leaf: 1 is non-blocking, 2 means 2:1. */
    oversubscription: z.number().min(1).default(1),
    /** Nodes under one leaf switch (one rail group). */
    nodesPerLeaf: z.number().int().positive().default(16),
  }),
]);
export type ClusterTopology = z.infer<typeof TopologySchema>;

export const IntraNodeSchema = specObject({
  /** Defaults to the GPU's: nvlink, or pcie for a GPU without NVLink (nvlinkBandwidthGBps 0). */
  kind: z.enum(['nvlink', 'pcie']).optional(),
  /** Overrides the GPU preset's NVLink or PCIe bandwidth (GB/s per GPU, one direction). */
  bandwidthGBps: z.number().positive().optional(),
});

export const ClusterSchema = specObject({
  nodes: z.number().int().positive().max(MAX_NODES, `expected at most ${MAX_NODES} nodes`),
  gpusPerNode: z
    .number()
    .int()
    .positive()
    .max(MAX_GPUS_PER_NODE, `expected at most ${MAX_GPUS_PER_NODE} GPUs per node`)
    .default(8),
  /** Defaults to one NIC per GPU, as on DGX/HGX systems. */
  nicsPerNode: z
    .number()
    .int()
    .positive()
    .max(MAX_NICS_PER_NODE, `expected at most ${MAX_NICS_PER_NODE} NICs per node`)
    .optional(),
  gpu: presetOrInline('GPU', GpuSchema).default('h100-sxm'),
  fabric: presetOrInline('fabric', FabricSchema).default('roce-400g'),
  intraNode: IntraNodeSchema.default({}),
  topology: TopologySchema.default({ kind: 'single-switch' }),
  /** Defaults to what the fabric allows. */
  gpuDirectRdma: z.boolean().optional(),
  /**
   * Host DRAM bandwidth per node (GB/s), which kernel TCP's copies consume. Default: two sockets of
   * 8 DDR5-4800 channels, 2 x 307 GB/s (Intel Xeon 4th generation datasheet).
   */
  hostMemoryBandwidthGBps: z.number().positive().default(614),
  /**
   * The NCCL version whose tuning the model applies (X.Y or X.Y.Z, as NCCL's log prints `NCCL version 2.21.5`).
   * Default: the newest the model encodes (src/core/nccl-version.ts DEFAULT_NCCL_VERSION).
   */
  ncclVersion: z
    .string()
    .regex(NCCL_VERSION_FORM, `expected an NCCL version X.Y such as ${DEFAULT_NCCL_VERSION} (or X.Y.Z)`)
    .optional(),
});
export type ClusterInput = z.input<typeof ClusterSchema>;
export type ClusterFileSpec = z.output<typeof ClusterSchema>;
