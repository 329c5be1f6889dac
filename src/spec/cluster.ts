/** A cluster: how many nodes of which GPU, joined by which fabric and topology. */
import { z } from 'zod';
import { FabricSchema } from './fabric.js';
import { GpuSchema } from './gpu.js';

export const TopologySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('single-switch') }),
  z.object({
    kind: z.literal('leaf-spine'),
    /** Downlink to uplink bandwidth ratio at the leaf: 1 is non-blocking, 2 means 2:1. */
    oversubscription: z.number().min(1).default(1),
    /** Nodes under one leaf switch (one rail group). */
    nodesPerLeaf: z.number().int().positive().default(16),
  }),
]);
export type ClusterTopology = z.infer<typeof TopologySchema>;

export const IntraNodeSchema = z.object({
  kind: z.enum(['nvlink', 'pcie']).default('nvlink'),
  /** Overrides the GPU preset's NVLink or PCIe bandwidth (GB/s per GPU, one direction). */
  bandwidthGBps: z.number().positive().optional(),
});

export const ClusterSchema = z.object({
  nodes: z.number().int().positive(),
  gpusPerNode: z.number().int().positive().default(8),
  /** Defaults to one NIC per GPU, as on DGX/HGX systems. */
  nicsPerNode: z.number().int().positive().optional(),
  gpu: z.union([z.string().min(1), GpuSchema]).default('h100-sxm'),
  fabric: z.union([z.string().min(1), FabricSchema]).default('roce-400g'),
  intraNode: IntraNodeSchema.default({ kind: 'nvlink' }),
  topology: TopologySchema.default({ kind: 'single-switch' }),
  /** Defaults to what the fabric allows. */
  gpuDirectRdma: z.boolean().optional(),
  /**
   * Host DRAM bandwidth per node (GB/s), which kernel TCP's copies consume. Default: two sockets of
   * 8 DDR5-4800 channels, 2 x 307 GB/s (Intel Xeon 4th generation datasheet).
   */
  hostMemoryBandwidthGBps: z.number().positive().default(614),
});
export type ClusterInput = z.input<typeof ClusterSchema>;
export type ClusterFileSpec = z.output<typeof ClusterSchema>;
