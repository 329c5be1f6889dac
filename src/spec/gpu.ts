/** An accelerator: compute peak, memory and the links that feed it. */
import { z } from 'zod';
import { specObject } from './strict-object.js';

export const GpuSchema = specObject({
  id: z.string().min(1),
  name: z.string().min(1),
  /** Dense (no sparsity) BF16 tensor-core peak (TFLOP/s). */
  bf16DenseTflops: z.number().positive(),
  /** Dense FP8 peak where the GPU has FP8 (TFLOP/s); absent otherwise. */
  fp8DenseTflops: z.number().positive().optional(),
  hbmGB: z.number().positive(),
  hbmBandwidthTBps: z.number().positive(),
  /**
   * NVLink bandwidth per GPU, both directions together (GB/s), as NVIDIA quotes it. 0 for a PCIe-only
   * GPU (and for PCIe cards whose NVLink bridge joins only pairs): its GPUs talk over PCIe.
   */
  nvlinkBandwidthGBps: z.number().min(0),
  /**
   * The GPU's NVLink domain has third-generation-or-later NVSwitch with NVLink SHARP, so NCCL can run
   * its NVLS algorithms (HGX/DGX H100, H200, B200, GB200; not A100 or V100).
   */
  nvls: z.boolean().default(false),
  /** GPUs joined by NVLink in one domain: 8 on HGX boards, 72 on GB200 NVL72, 1 for a PCIe-only GPU. */
  nvlinkDomainGpus: z.number().int().positive().default(8),
  pcieGen: z.number().int().min(3).max(7),
  pcieLanes: z.number().int().positive().default(16),
  sources: z.record(z.string(), z.string()).default({}),
});
export type GpuSpec = z.infer<typeof GpuSchema>;

/** Usable PCIe bandwidth per direction (GB/s) for a generation and lane count (128b/130b encoding, ~80% after TLP overhead). */
export function pcieBandwidthGBps(gpu: Pick<GpuSpec, 'pcieGen' | 'pcieLanes'>): number {
  // Per-lane raw GT/s by generation (PCI-SIG): 3: 8, 4: 16, 5: 32, 6: 64, 7: 128.
  const gigaTransfersPerLane = 8 * 2 ** (gpu.pcieGen - 3);
  const encoding = 128 / 130;
  const protocolEfficiency = 0.8; // TLP/DLLP headers at 256-byte max payload (PCI-SIG; measured D2H copies reach ~80%).
  return (gigaTransfersPerLane * gpu.pcieLanes * encoding * protocolEfficiency) / 8;
}
