#!/usr/bin/env node
// Predicted against published measurements (shared/data/reference-points.md). Run after `npm run build`:
//   node bench/model-calibration.mjs
// docs/models.md reproduces this table; test/model/calibration.test.ts holds each point within 10%.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const lib = await import(join(root, 'dist', 'index.js'));

const points = [
  { setup: '1 x EDR 100G IB per node, 4 x 8 GPUs', input: { nodes: 4, gpusPerNode: 8, nicsPerNode: 1, fabric: 'ib-edr-100g', gpu: 'a100-40gb' }, measured: 12.2, source: 'nccl-tests issue 29' },
  { setup: '8 x HDR 200G per node (24 GB/s per NIC rule)', input: { nodes: 4, gpusPerNode: 8, nicsPerNode: 8, fabric: 'ib-hdr-200g', gpu: 'a100-80gb' }, measured: 192, source: 'nccl-tests issue 119' },
  { setup: '4 x NDR 400G per H100 node (46-49 GB/s per NIC rule)', input: { nodes: 8, gpusPerNode: 8, nicsPerNode: 4, fabric: 'ib-ndr-400g', gpu: 'h100-sxm' }, measured: 4 * 47.5, source: 'nccl-tests issue 119 (midpoint)' },
  { setup: '8 x A100 in one node (NVLink)', input: { nodes: 1, gpusPerNode: 8, fabric: 'ib-hdr-200g', gpu: 'a100-40gb' }, measured: 230, source: 'superbench DGX A100 fixtures (226-233)' },
  { setup: '8 x H100 in one node, ring (NVLink)', input: { nodes: 1, gpusPerNode: 8, fabric: 'ib-ndr-400g', gpu: 'h100-sxm' }, measured: 370, source: 'nccl-tests issue 212 (maintainer)' },
  { setup: '2 x 8 A100, 16 x 100G RoCE per node, 8 GiB', input: { nodes: 2, gpusPerNode: 8, nicsPerNode: 16, fabric: 'roce-100g', gpu: 'a100-40gb' }, size: 8 * 1024 ** 3, measured: 189.6, source: 'OCI sample log' },
  { setup: '2 x 8 A100, 16 x 100G RoCE per node, 1 GiB', input: { nodes: 2, gpusPerNode: 8, nicsPerNode: 16, fabric: 'roce-100g', gpu: 'a100-40gb' }, size: 1024 ** 3, measured: 184.92, source: 'OCI sample log' },
  { setup: '4 x 8 GPUs, NCCL over TCP 100G, 1 NIC per node', input: { nodes: 4, gpusPerNode: 8, nicsPerNode: 1, fabric: 'tcp-100g', gpu: 'a100-40gb' }, measured: 5, source: 'nccl issue 450 (4-6 band)' },
];

console.log('| setup | measured busbw GB/s | predicted GB/s | error | source |');
console.log('|---|---|---|---|---|');
for (const point of points) {
  const predicted = point.size
    ? lib.predictCollective({ op: 'all_reduce', ...point.input, sizeBytes: point.size }).busbwGBps
    : lib.predictBusbwPlateauGBps({ op: 'all_reduce', ...point.input });
  const error = (predicted - point.measured) / point.measured;
  console.log(`| ${point.setup} | ${point.measured.toFixed(2)} | ${predicted.toFixed(2)} | ${(error * 100).toFixed(1)}% | ${point.source} |`);
}
