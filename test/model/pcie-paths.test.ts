import { describe, expect, it } from 'vitest';
import { predictCollective } from '../../src/model/index.js';

// Two nodes of one A100-PCIe each on HDR InfiniBand, GPUDirect RDMA through the CPU's host bridge (NCCL's PHB path):
// test/fixtures/nccl-tests/thomaslie-2x1-a100pcie-hdr-*-gdr-on-nccl-info.log (SOURCES.md).
const pair = {
  nodes: 2,
  gpusPerNode: 1,
  nicsPerNode: 1,
  fabric: 'ib-hdr-200g',
  gpu: 'a100-pcie-80gb',
  gpuDirectRdma: true,
  intraNodeKind: 'pcie',
  gdrViaCpu: true,
  ncclVersion: '2.16',
} as const;
const GiB = 1024 ** 3;

describe('GPUDirect through the host bridge (issue 10, part 4)', () => {
  it('a two-rank broadcast moves one way and reaches the line rate (measured 24.07 GB/s at 1 GiB)', () => {
    const busbw = predictCollective({ ...pair, op: 'broadcast', sizeBytes: GiB }).busbwGBps;
    expect(busbw / 24.07).toBeGreaterThan(0.95);
    expect(busbw / 24.07).toBeLessThan(1.05);
  });

  it('a two-rank reduce is the same one-way chain', () => {
    const reduce = predictCollective({ ...pair, op: 'reduce', sizeBytes: GiB }).busbwGBps;
    expect(reduce).toBeCloseTo(predictCollective({ ...pair, op: 'broadcast', sizeBytes: GiB }).busbwGBps, 6);
  });

  it('all_reduce sends and receives at once through the root complex: about half the link (measured 13.5-14.9 GB/s)', () => {
    const busbw = predictCollective({ ...pair, op: 'all_reduce', sizeBytes: GiB }).busbwGBps;
    expect(busbw).toBeGreaterThan(11);
    expect(busbw).toBeLessThan(15);
  });

  it('from three ranks a broadcast chain has ranks that receive and forward at once: halved again', () => {
    const three = predictCollective({ ...pair, nodes: 3, op: 'broadcast', sizeBytes: GiB }).busbwGBps;
    expect(three).toBeLessThan(15);
  });
});
