import { describe, expect, it } from 'vitest';
import { predictCollective } from '../../src/model/predict.js';

// The pure alpha-beta ring: T = 2(N-1)/N x S/B + 2(N-1) x A, one GPU per node (issue 2 acceptance).
describe('pure alpha-beta ring all_reduce', () => {
  const cases = [
    { nodes: 2, sizeBytes: 1024, alphaSeconds: 5e-6, bandwidthBps: 100e9 },
    { nodes: 3, sizeBytes: 1_000_003, alphaSeconds: 2e-6, bandwidthBps: 25e9 },
    { nodes: 8, sizeBytes: 128 * 1024 ** 2, alphaSeconds: 1e-6, bandwidthBps: 400e9 },
    { nodes: 16, sizeBytes: 7, alphaSeconds: 100e-6, bandwidthBps: 1e9 },
    { nodes: 64, sizeBytes: 8 * 1024 ** 3, alphaSeconds: 3.3e-6, bandwidthBps: 200e9 },
    { nodes: 1000, sizeBytes: 12345678, alphaSeconds: 10e-6, bandwidthBps: 800e9 },
  ];
  it.each(cases)(
    'N=$nodes S=$sizeBytes A=$alphaSeconds B=$bandwidthBps',
    ({ nodes, sizeBytes, alphaSeconds, bandwidthBps }) => {
      const estimate = predictCollective({
        op: 'all_reduce',
        nodes,
        gpusPerNode: 1,
        fabric: 'roce-400g',
        algo: 'ring',
        alphaSeconds,
        bandwidthBps,
        sizeBytes,
      });
      const bytesPerSecond = bandwidthBps / 8;
      const expectedSeconds =
        ((2 * (nodes - 1)) / nodes) * (sizeBytes / bytesPerSecond) + 2 * (nodes - 1) * alphaSeconds;
      expect(Math.abs(estimate.timeUs * 1e-6 - expectedSeconds) / expectedSeconds).toBeLessThan(1e-9);
      expect(estimate.algo).toBe('ring');
      expect(estimate.protocol).toBe('alpha-beta');
      expect(estimate.timeoutDelayUs).toBe(0);
    },
  );

  it('gives the same answer whatever fabric preset sits underneath', () => {
    const a = predictCollective({
      op: 'all_reduce',
      nodes: 4,
      gpusPerNode: 1,
      fabric: 'tcp-25g',
      algo: 'ring',
      alphaSeconds: 4e-6,
      bandwidthBps: 50e9,
      sizeBytes: 1 << 20,
    });
    const b = predictCollective({
      op: 'all_reduce',
      nodes: 4,
      gpusPerNode: 1,
      fabric: 'ib-xdr-800g',
      algo: 'ring',
      alphaSeconds: 4e-6,
      bandwidthBps: 50e9,
      sizeBytes: 1 << 20,
    });
    expect(a.timeUs).toBe(b.timeUs);
  });
});
