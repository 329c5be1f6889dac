/**
 * Built-in GPUs. Every field names its public source. Dense peaks: where a datasheet prints only the
 * sparse (2:4 structured sparsity) figure, the dense one is half of it, and the source says so.
 */
import type { GpuSpec } from '../gpu.js';

type GpuValues = Omit<GpuSpec, 'sources'>;
type GpuField = Exclude<keyof GpuValues, 'id' | 'name'>;
/** One source per value the preset sets: a preset that forgets one does not compile. */
type GpuSources<V extends GpuValues> = {
  [K in GpuField as K extends keyof V ? (V[K] extends undefined ? never : K) : never]: string;
};

function gpu<const V extends GpuValues>(values: V, sources: GpuSources<V>): GpuSpec {
  return { ...values, sources: { ...sources } };
}

const V100_DS = 'NVIDIA Tesla V100 GPU Accelerator datasheet (nvidia.com/en-us/data-center/v100)';
const A100_DS = 'NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100)';
const H100_DS = 'NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100)';
const H200_DS = 'NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column (nvidia.com/en-us/data-center/h200)';
const B200_DS = 'NVIDIA DGX B200 datasheet and HGX B200 specifications (nvidia.com/en-us/data-center/hgx)';
const L40S_DS = 'NVIDIA L40S GPU datasheet (nvidia.com/en-us/data-center/l40s)';
const GH200_DS =
  'NVIDIA GH200 Grace Hopper Superchip datasheet (nvidia.com/en-us/data-center/grace-hopper-superchip)';
const GB200_DS =
  'NVIDIA GB200 NVL72 specifications (nvidia.com/en-us/data-center/gb200-nvl72), rack figures divided by its 72 GPUs';
const SPARK_DS = 'NVIDIA DGX Spark specifications (nvidia.com/en-us/products/workstations/dgx-spark)';

const NVLS_HOPPER_UP =
  'NVLS needs NVLink SHARP, which third-generation NVSwitch (Hopper) and later provide (NVIDIA blog "Upgrading Multi-GPU Interconnectivity with the Third-Generation NVIDIA NVSwitch"; NCCL 2.17+ NVLS algorithm)';
const NVLS_NONE_SWITCH =
  'no NVLink SHARP: second-generation NVSwitch (A100 HGX) has no in-switch reduction, so NCCL cannot run NVLS (same NVIDIA NVSwitch blog)';
const NVLS_NONE_PCIE = 'no NVSwitch in a PCIe-only node, so no NVLS';
const HGX8 = 'HGX/DGX boards join 8 GPUs through NVSwitch (the GPU datasheet, HGX column)';
const PCIE_ONLY_DOMAIN = '1: PCIe-only, no GPU-to-GPU NVLink domain';
const X16 = 'PCIe x16 host interface (the datasheet)';

export const gpuPresets: readonly GpuSpec[] = [
  gpu(
    {
      id: 'a100-40gb',
      name: 'NVIDIA A100 SXM4 40GB',
      bf16DenseTflops: 312,
      hbmGB: 40,
      hbmBandwidthTBps: 1.555,
      nvlinkBandwidthGBps: 600,
      pcieGen: 4,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 8,
    },
    {
      bf16DenseTflops: `${A100_DS}: BF16 tensor 312 TFLOPS dense (624 with sparsity)`,
      hbmGB: `${A100_DS}: 40 GB HBM2`,
      hbmBandwidthTBps: `${A100_DS}: 1,555 GB/s`,
      nvlinkBandwidthGBps: `${A100_DS}: NVLink 600 GB/s (SXM)`,
      pcieGen: `${A100_DS}: PCIe Gen4 64 GB/s`,
      pcieLanes: X16,
      nvls: NVLS_NONE_SWITCH,
      nvlinkDomainGpus: HGX8,
    },
  ),
  gpu(
    {
      id: 'a100-80gb',
      name: 'NVIDIA A100 SXM4 80GB',
      bf16DenseTflops: 312,
      hbmGB: 80,
      hbmBandwidthTBps: 2.039,
      nvlinkBandwidthGBps: 600,
      pcieGen: 4,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 8,
    },
    {
      bf16DenseTflops: `${A100_DS}: BF16 tensor 312 TFLOPS dense (624 with sparsity)`,
      hbmGB: `${A100_DS}: 80 GB HBM2e (SXM)`,
      hbmBandwidthTBps: `${A100_DS}: 2,039 GB/s (80GB SXM)`,
      nvlinkBandwidthGBps: `${A100_DS}: NVLink 600 GB/s (SXM)`,
      pcieGen: `${A100_DS}: PCIe Gen4 64 GB/s`,
      pcieLanes: X16,
      nvls: NVLS_NONE_SWITCH,
      nvlinkDomainGpus: HGX8,
    },
  ),
  gpu(
    {
      id: 'h100-sxm',
      name: 'NVIDIA H100 SXM5 80GB',
      bf16DenseTflops: 989,
      fp8DenseTflops: 1979,
      hbmGB: 80,
      hbmBandwidthTBps: 3.35,
      nvlinkBandwidthGBps: 900,
      pcieGen: 5,
      pcieLanes: 16,
      nvls: true,
      nvlinkDomainGpus: 8,
    },
    {
      bf16DenseTflops: `${H100_DS}, H100 SXM column: BF16 1,979 TFLOPS with sparsity = 989 dense`,
      fp8DenseTflops: `${H100_DS}, H100 SXM column: FP8 3,958 TFLOPS with sparsity = 1,979 dense`,
      hbmGB: `${H100_DS}, H100 SXM column: 80 GB HBM3`,
      hbmBandwidthTBps: `${H100_DS}, H100 SXM column: 3.35 TB/s`,
      nvlinkBandwidthGBps: `${H100_DS}, H100 SXM column: NVLink 900 GB/s`,
      pcieGen: `${H100_DS}, H100 SXM column: PCIe Gen5 128 GB/s`,
      pcieLanes: X16,
      nvls: NVLS_HOPPER_UP,
      nvlinkDomainGpus: HGX8,
    },
  ),
  gpu(
    {
      id: 'h200',
      name: 'NVIDIA H200 SXM 141GB',
      bf16DenseTflops: 989,
      fp8DenseTflops: 1979,
      hbmGB: 141,
      hbmBandwidthTBps: 4.8,
      nvlinkBandwidthGBps: 900,
      pcieGen: 5,
      pcieLanes: 16,
      nvls: true,
      nvlinkDomainGpus: 8,
    },
    {
      bf16DenseTflops: `${H200_DS}: BF16 1,979 TFLOPS with sparsity = 989 dense`,
      fp8DenseTflops: `${H200_DS}: FP8 3,958 TFLOPS with sparsity = 1,979 dense`,
      hbmGB: `${H200_DS}: 141 GB HBM3e`,
      hbmBandwidthTBps: `${H200_DS}: 4.8 TB/s`,
      nvlinkBandwidthGBps: `${H200_DS}: NVLink 900 GB/s`,
      pcieGen: `${H200_DS}: PCIe Gen5 128 GB/s`,
      pcieLanes: X16,
      nvls: NVLS_HOPPER_UP,
      nvlinkDomainGpus: HGX8,
    },
  ),
  gpu(
    {
      id: 'b200',
      name: 'NVIDIA B200 180GB',
      bf16DenseTflops: 2250,
      fp8DenseTflops: 4500,
      hbmGB: 180,
      hbmBandwidthTBps: 8,
      nvlinkBandwidthGBps: 1800,
      pcieGen: 6,
      pcieLanes: 16,
      nvls: true,
      nvlinkDomainGpus: 8,
    },
    {
      bf16DenseTflops: `${B200_DS}: HGX B200 BF16 36 PFLOPS with sparsity for 8 GPUs = 4.5 per GPU sparse = 2.25 dense`,
      fp8DenseTflops: `${B200_DS}: DGX B200 72 PFLOPS FP8 training for 8 GPUs (with sparsity) = 9 per GPU sparse = 4.5 dense`,
      hbmGB: `${B200_DS}: DGX B200 1,440 GB HBM3e for 8 GPUs = 180 GB`,
      hbmBandwidthTBps: `${B200_DS}: DGX B200 64 TB/s for 8 GPUs = 8 TB/s`,
      nvlinkBandwidthGBps: `${B200_DS}: fifth-generation NVLink 1.8 TB/s per GPU`,
      pcieGen: `${B200_DS}: PCIe Gen6 host interface as the HGX B200 specification lists it (the system's NICs and switches may run Gen5; not verified per platform)`,
      pcieLanes: X16,
      nvls: NVLS_HOPPER_UP,
      nvlinkDomainGpus: HGX8,
    },
  ),
  gpu(
    {
      id: 'v100-sxm2',
      name: 'NVIDIA Tesla V100 SXM2 32GB',
      bf16DenseTflops: 125,
      hbmGB: 32,
      hbmBandwidthTBps: 0.9,
      nvlinkBandwidthGBps: 300,
      pcieGen: 3,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 8,
    },
    {
      bf16DenseTflops: `${V100_DS}: V100 has no BF16; this is its FP16 tensor peak, 125 TFLOPS (SXM2), dense (Volta has no sparsity)`,
      hbmGB: `${V100_DS}: 32 GB HBM2 (a 16 GB part also exists)`,
      hbmBandwidthTBps: `${V100_DS}: 900 GB/s`,
      nvlinkBandwidthGBps: `${V100_DS}: NVLink 300 GB/s (SXM2)`,
      pcieGen: `${V100_DS}: PCIe Gen3 (32 GB/s)`,
      pcieLanes: X16,
      nvls: 'no NVSwitch on DGX-1/HGX-1 V100 boards (hybrid cube-mesh NVLink), so no NVLS',
      nvlinkDomainGpus:
        'DGX-1/HGX-1 join 8 V100 SXM2 in a hybrid cube-mesh NVLink (NVIDIA DGX-1 with Tesla V100 System Architecture white paper); not all pairs are direct',
    },
  ),
  gpu(
    {
      id: 'v100-pcie',
      name: 'NVIDIA Tesla V100 PCIe 32GB',
      bf16DenseTflops: 112,
      hbmGB: 32,
      hbmBandwidthTBps: 0.9,
      nvlinkBandwidthGBps: 0,
      pcieGen: 3,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 1,
    },
    {
      bf16DenseTflops: `${V100_DS}: V100 has no BF16; this is its FP16 tensor peak, 112 TFLOPS (PCIe), dense`,
      hbmGB: `${V100_DS}: 32 GB HBM2`,
      hbmBandwidthTBps: `${V100_DS}: 900 GB/s`,
      nvlinkBandwidthGBps: `${V100_DS}: the PCIe card's interconnect is PCIe Gen3 32 GB/s only, no NVLink: 0`,
      pcieGen: `${V100_DS}: PCIe Gen3`,
      pcieLanes: X16,
      nvls: NVLS_NONE_PCIE,
      nvlinkDomainGpus: PCIE_ONLY_DOMAIN,
    },
  ),
  gpu(
    {
      id: 'a100-pcie-80gb',
      name: 'NVIDIA A100 PCIe 80GB',
      bf16DenseTflops: 312,
      hbmGB: 80,
      hbmBandwidthTBps: 1.935,
      nvlinkBandwidthGBps: 0,
      pcieGen: 4,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 1,
    },
    {
      bf16DenseTflops: `${A100_DS}: BF16 tensor 312 TFLOPS dense (624 with sparsity), same for PCIe and SXM`,
      hbmGB: `${A100_DS}: 80 GB HBM2e (PCIe)`,
      hbmBandwidthTBps: `${A100_DS}: 1,935 GB/s (80GB PCIe)`,
      nvlinkBandwidthGBps: `${A100_DS}: the PCIe card's NVLink bridge (600 GB/s) joins only 2 GPUs, so GPUs of a node talk over PCIe: 0`,
      pcieGen: `${A100_DS}: PCIe Gen4 64 GB/s`,
      pcieLanes: X16,
      nvls: NVLS_NONE_PCIE,
      nvlinkDomainGpus: `${PCIE_ONLY_DOMAIN} (an NVLink bridge pairs at most 2 cards)`,
    },
  ),
  gpu(
    {
      id: 'l40s',
      name: 'NVIDIA L40S 48GB',
      bf16DenseTflops: 362.05,
      fp8DenseTflops: 733,
      hbmGB: 48,
      hbmBandwidthTBps: 0.864,
      nvlinkBandwidthGBps: 0,
      pcieGen: 4,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 1,
    },
    {
      bf16DenseTflops: `${L40S_DS}: BF16 tensor 362.05 TFLOPS dense (733 with sparsity)`,
      fp8DenseTflops: `${L40S_DS}: FP8 tensor 733 TFLOPS dense (1,466 with sparsity)`,
      hbmGB: `${L40S_DS}: 48 GB GDDR6 with ECC (not HBM; the field holds the GPU memory)`,
      hbmBandwidthTBps: `${L40S_DS}: 864 GB/s`,
      nvlinkBandwidthGBps: `${L40S_DS}: no NVLink (interconnect PCIe Gen4 x16): 0`,
      pcieGen: `${L40S_DS}: PCIe Gen4 x16, 64 GB/s bidirectional`,
      pcieLanes: X16,
      nvls: NVLS_NONE_PCIE,
      nvlinkDomainGpus: PCIE_ONLY_DOMAIN,
    },
  ),
  gpu(
    {
      id: 'h100-pcie',
      name: 'NVIDIA H100 PCIe 80GB',
      bf16DenseTflops: 756,
      fp8DenseTflops: 1513,
      hbmGB: 80,
      hbmBandwidthTBps: 2,
      nvlinkBandwidthGBps: 0,
      pcieGen: 5,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 1,
    },
    {
      bf16DenseTflops: `${H100_DS}, H100 PCIe column: BF16 1,513 TFLOPS with sparsity = 756 dense`,
      fp8DenseTflops: `${H100_DS}, H100 PCIe column: FP8 3,026 TFLOPS with sparsity = 1,513 dense`,
      hbmGB: `${H100_DS}, H100 PCIe column: 80 GB`,
      hbmBandwidthTBps: `${H100_DS}, H100 PCIe column: 2 TB/s`,
      nvlinkBandwidthGBps: `${H100_DS}, H100 PCIe column: the NVLink bridge (600 GB/s) joins only pairs of cards, so GPUs of a node talk over PCIe: 0`,
      pcieGen: `${H100_DS}, H100 PCIe column: PCIe Gen5 128 GB/s`,
      pcieLanes: X16,
      nvls: NVLS_NONE_PCIE,
      nvlinkDomainGpus: `${PCIE_ONLY_DOMAIN} (an NVLink bridge pairs at most 2 cards)`,
    },
  ),
  gpu(
    {
      id: 'gh200',
      name: 'NVIDIA GH200 Grace Hopper Superchip (96GB HBM3)',
      bf16DenseTflops: 989,
      fp8DenseTflops: 1979,
      hbmGB: 96,
      hbmBandwidthTBps: 4,
      nvlinkBandwidthGBps: 900,
      pcieGen: 5,
      pcieLanes: 16,
      nvls: true,
      nvlinkDomainGpus: 1,
    },
    {
      bf16DenseTflops: `${GH200_DS}: BF16 1,979 TFLOPS with sparsity = 989 dense`,
      fp8DenseTflops: `${GH200_DS}: FP8 3,958 TFLOPS with sparsity = 1,979 dense`,
      hbmGB: `${GH200_DS}: 96 GB HBM3 (a 144 GB HBM3e part at 4.9 TB/s also exists)`,
      hbmBandwidthTBps: `${GH200_DS}: 4 TB/s (96 GB HBM3)`,
      nvlinkBandwidthGBps: `${GH200_DS}: the Hopper GPU's fourth-generation NVLink ports, 900 GB/s, used GPU to GPU in GH200 NVL2 and NVL32 (NVLink-C2C, also 900 GB/s, joins GPU and Grace CPU)`,
      pcieGen: `${GH200_DS}: the Grace CPU's PCIe Gen5 lanes carry the NICs (the GPU reaches them through NVLink-C2C); lane count per NIC not stated, x16 assumed`,
      pcieLanes: `${GH200_DS}: Grace exposes PCIe Gen5 x16 links; x16 per NIC assumed`,
      nvls: `${NVLS_HOPPER_UP}; only meaningful in NVL32, where NVSwitch joins the superchips`,
      nvlinkDomainGpus:
        '1 GPU per superchip node; 32 in a GH200 NVL32 rack (NVIDIA GH200 NVL32 announcement): set nvlinkDomainGpus: 32 inline for NVL32',
    },
  ),
  gpu(
    {
      id: 'gb200',
      name: 'NVIDIA GB200 (one Blackwell GPU of a GB200 NVL72)',
      bf16DenseTflops: 2500,
      fp8DenseTflops: 5000,
      hbmGB: 186,
      hbmBandwidthTBps: 8,
      nvlinkBandwidthGBps: 1800,
      pcieGen: 6,
      pcieLanes: 16,
      nvls: true,
      nvlinkDomainGpus: 72,
    },
    {
      bf16DenseTflops: `${GB200_DS}: FP16/BF16 tensor 360 PFLOPS with sparsity / 72 = 5 sparse = 2.5 PFLOPS dense per GPU`,
      fp8DenseTflops: `${GB200_DS}: FP8/FP6 tensor 720 PFLOPS with sparsity / 72 = 10 sparse = 5 PFLOPS dense per GPU`,
      hbmGB: `${GB200_DS}: up to 13.4 TB HBM3e / 72 = 186 GB per GPU`,
      hbmBandwidthTBps: `${GB200_DS}: 576 TB/s / 72 = 8 TB/s per GPU`,
      nvlinkBandwidthGBps: `${GB200_DS}: NVLink 130 TB/s / 72 = 1.8 TB/s per GPU (fifth-generation NVLink)`,
      pcieGen: `${B200_DS}: the Blackwell GPU's PCIe Gen6 interface as for B200; in GB200 the GPU reaches Grace over NVLink-C2C and the NICs' link generation is not stated per GPU: not verified`,
      pcieLanes: `${X16}, assumed as for B200`,
      nvls: `${NVLS_HOPPER_UP}; the NVL72 NVLink Switch System has NVLink SHARP`,
      nvlinkDomainGpus: `${GB200_DS}: 72 Blackwell GPUs in one NVLink domain`,
    },
  ),
  gpu(
    {
      id: 'gb10',
      name: 'NVIDIA GB10 Grace Blackwell Superchip (DGX Spark)',
      bf16DenseTflops: 125,
      fp8DenseTflops: 250,
      hbmGB: 128,
      hbmBandwidthTBps: 0.273,
      nvlinkBandwidthGBps: 0,
      pcieGen: 5,
      pcieLanes: 16,
      nvls: false,
      nvlinkDomainGpus: 1,
    },
    {
      bf16DenseTflops: `derived, not published: ${SPARK_DS} gives only "up to 1 PFLOP FP4 with sparsity"; /2 for sparsity, /2 FP4 to FP8, /2 FP8 to BF16 (datacenter Blackwell ratios, unverified for GB10) = 125`,
      fp8DenseTflops: `derived, not published: ${SPARK_DS} 1 PFLOP FP4 with sparsity /2 sparsity /2 FP4 to FP8 = 250 (unverified for GB10)`,
      hbmGB: `${SPARK_DS}: 128 GB LPDDR5x unified system memory (not HBM; shared with the CPU)`,
      hbmBandwidthTBps: `${SPARK_DS}: 273 GB/s memory bandwidth`,
      nvlinkBandwidthGBps: `${SPARK_DS}: one GPU, joined to the CPU by NVLink-C2C; no GPU-to-GPU NVLink: 0 (two Sparks link over ConnectX-7 200 Gb/s)`,
      pcieGen: `assumed PCIe Gen5 for the ConnectX-7 path (${SPARK_DS} names ConnectX-7; lane count and generation not stated): not verified`,
      pcieLanes: 'assumed x16: not verified',
      nvls: NVLS_NONE_PCIE,
      nvlinkDomainGpus: PCIE_ONLY_DOMAIN,
    },
  ),
];
