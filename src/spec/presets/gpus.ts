/** Built-in GPUs. Dense BF16 peaks are the datasheets' sparse figures halved where only those are printed. */
import type { GpuSpec } from '../gpu.js';

const A100_SOURCE = 'NVIDIA A100 Tensor Core GPU datasheet (BF16 312 TFLOPS dense, NVLink 600 GB/s, PCIe Gen4)';
const H100_SOURCE = 'NVIDIA H100 Tensor Core GPU datasheet, SXM5 column (BF16 1979 TFLOPS with sparsity = 989 dense, HBM3 3.35 TB/s, NVLink 900 GB/s, PCIe Gen5)';
const H200_SOURCE = 'NVIDIA H200 Tensor Core GPU datasheet, SXM column (BF16 989 TFLOPS dense, 141 GB HBM3e at 4.8 TB/s, NVLink 900 GB/s)';
const B200_SOURCE = 'NVIDIA DGX B200 datasheet (8 GPUs: 72 PFLOPS FP8 training, 1,440 GB HBM3e, 64 TB/s) and HGX B200 spec (BF16 4.5 PFLOPS sparse = 2.25 dense per GPU, NVLink 5 1.8 TB/s, PCIe Gen6)';

export const gpuPresets: readonly GpuSpec[] = [
  {
    id: 'a100-40gb',
    name: 'NVIDIA A100 SXM4 40GB',
    bf16DenseTflops: 312,
    hbmGB: 40,
    hbmBandwidthTBps: 1.555,
    nvlinkBandwidthGBps: 600,
    pcieGen: 4,
    pcieLanes: 16,
    sources: { all: A100_SOURCE },
  },
  {
    id: 'a100-80gb',
    name: 'NVIDIA A100 SXM4 80GB',
    bf16DenseTflops: 312,
    hbmGB: 80,
    hbmBandwidthTBps: 2.039,
    nvlinkBandwidthGBps: 600,
    pcieGen: 4,
    pcieLanes: 16,
    sources: { all: A100_SOURCE },
  },
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
    sources: { all: H100_SOURCE },
  },
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
    sources: { all: H200_SOURCE },
  },
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
    sources: { all: B200_SOURCE },
  },
];
