import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COLLECTIVE_OPS, type CollectiveOp } from '../../src/model/busbw.js';
import { buildShape } from '../../src/model/collective-shape.js';
import { ALGORITHM_CHOICES, applicableAlgorithms, estimateCollective } from '../../src/model/collectives.js';
import { runCollective } from '../../src/model/collective-run.js';
import { MAX_SWEEP_ROWS, alignedSweepSizes, sweepSizes } from '../../src/model/predict.js';
import { UsageError } from '../../src/core/errors.js';
import { getFabricPreset, getGpuPreset } from '../../src/spec/presets/index.js';

const h100 = getGpuPreset('h100-sxm');
const oneRank = buildShape({ nodes: 1, gpusPerNode: 1, fabric: getFabricPreset('roce-400g'), gpu: h100 });

describe('a one-rank collective (issue 9, Low: 162,688 GB/s algbw)', () => {
  it("is a local device copy: algbw below half the HBM bandwidth, busbw by nccl-tests' factor for n = 1", () => {
    const copyGBps = h100.hbmBandwidthTBps * 1e3 * 0.5;
    for (const op of COLLECTIVE_OPS) {
      for (const size of [0, 8, 1 << 20, 8 * 1024 ** 3]) {
        const estimate = estimateCollective(op, size, oneRank);
        expect(estimate.algo, op).toBe('local');
        expect(estimate.protocol, op).toBe('copy');
        expect(estimate.timeoutDelayUs).toBe(0);
        expect(estimate.timeUs).toBeCloseTo(0.78 + (size / (copyGBps * 1e9)) * 1e6, 9);
        expect(estimate.algbwGBps).toBeLessThan(copyGBps);
        // nccl-tests: all_reduce 2(n-1)/n, all_gather/reduce_scatter/alltoall (n-1)/n are 0 at n = 1; the rest 1.
        const factor = ['all_reduce', 'all_gather', 'reduce_scatter', 'alltoall'].includes(op) ? 0 : 1;
        expect(estimate.busbwGBps).toBe(estimate.algbwGBps * factor);
      }
    }
  });

  it('costs nothing in pure alpha-beta, as T = 2(N-1)/N S/B + 2(N-1)A gives at N = 1', () => {
    const pure = buildShape({
      nodes: 1,
      gpusPerNode: 1,
      fabric: getFabricPreset('roce-400g'),
      gpu: h100,
      alphaSeconds: 5e-6,
      bandwidthBps: 100e9,
    });
    const estimate = estimateCollective('all_reduce', 1 << 20, pure);
    expect(estimate.timeUs).toBe(0);
    expect(estimate.busbwGBps).toBe(0);
  });

  it('no longer predicts the 162,688 GB/s of the issue at any size', () => {
    for (const size of [8, 1 << 20, 1 << 30, 8 * 1024 ** 3]) {
      expect(estimateCollective('all_reduce', size, oneRank).algbwGBps).toBeLessThan(
        h100.hbmBandwidthTBps * 1e3,
      );
    }
  });
});

describe('--algo applies to the ops it names (issue 9, Low)', () => {
  it('lists the applicable algorithms per op', () => {
    expect(applicableAlgorithms('all_reduce')).toEqual([
      'auto',
      'ring',
      'tree',
      'collnetdirect',
      'collnetchain',
      'nvls',
      'nvlstree',
      'hierarchical',
    ]);
    expect(applicableAlgorithms('all_gather')).toEqual([
      'auto',
      'ring',
      'collnetdirect',
      'nvls',
      'pat',
      'hierarchical',
    ]);
    expect(applicableAlgorithms('reduce_scatter')).toEqual([
      'auto',
      'ring',
      'collnetdirect',
      'nvls',
      'pat',
      'hierarchical',
    ]);
    expect(applicableAlgorithms('broadcast')).toEqual(['auto', 'ring']);
    expect(applicableAlgorithms('reduce')).toEqual(['auto', 'ring']);
    expect(applicableAlgorithms('alltoall')).toEqual(['auto']);
    expect(applicableAlgorithms('sendrecv')).toEqual(['auto']);
  });

  it('refuses every other pairing the same way, for every shape', () => {
    const shape = buildShape({ nodes: 2, gpusPerNode: 8, fabric: getFabricPreset('roce-400g'), gpu: h100 });
    for (const op of COLLECTIVE_OPS) {
      for (const algo of ALGORITHM_CHOICES) {
        if (applicableAlgorithms(op).includes(algo)) {
          // Applies to the op; on a given shape NCCL may still not run it, and says which it runs.
          try {
            estimateCollective(op, 1 << 20, shape, algo);
          } catch (error) {
            expect(String(error)).toMatch(
              new RegExp(
                `--algo ${algo} does not run here: .+ \\(algorithms NCCL runs for ${op} on this shape: ring`,
              ),
            );
          }
          expect(() => estimateCollective(op, 1 << 20, oneRank, algo)).not.toThrow();
        } else {
          const expected = `--algo ${algo} does not apply to ${op}`;
          expect(() => estimateCollective(op, 1 << 20, shape, algo)).toThrow(expected);
          expect(() => estimateCollective(op, 1 << 20, oneRank, algo)).toThrow(expected);
          expect(() => estimateCollective(op, 1 << 20, shape, algo)).toThrow(
            `(algorithms for ${op}: ${applicableAlgorithms(op).join(', ')})`,
          );
        }
      }
    }
  });
});

describe('an algorithm NCCL does not run on the shape is refused, naming the ones it runs (issue 10)', () => {
  it('NVLS on A100, PAT at 8 GPUs per node, NVLSTree on one node, CollNet over RoCE', () => {
    const a100 = buildShape({
      nodes: 1,
      gpusPerNode: 8,
      fabric: getFabricPreset('ib-hdr-200g'),
      gpu: getGpuPreset('a100-40gb'),
    });
    expect(() => estimateCollective('all_reduce', 1 << 20, a100, 'nvls')).toThrow(
      '--algo nvls does not run here: NVLS needs NVSwitch with NVLink SHARP',
    );
    const twoH100 = buildShape({ nodes: 2, gpusPerNode: 8, fabric: getFabricPreset('roce-400g'), gpu: h100 });
    expect(() => estimateCollective('all_gather', 1 << 20, twoH100, 'pat')).toThrow(
      'PAT runs with one GPU per node only (algorithms NCCL runs for all_gather on this shape: ring, hierarchical)',
    );
    expect(() => estimateCollective('all_reduce', 1 << 20, twoH100, 'collnetdirect')).toThrow(
      'CollNet needs InfiniBand SHARP switches',
    );
    const oneH100 = buildShape({ nodes: 1, gpusPerNode: 8, fabric: getFabricPreset('roce-400g'), gpu: h100 });
    expect(() => estimateCollective('all_reduce', 1 << 20, oneH100, 'nvlstree')).toThrow(
      'NVLSTree needs more than one node',
    );
    expect(estimateCollective('all_reduce', 1 << 30, oneH100, 'nvls').algo).toBe('nvls');
    const old = buildShape({
      nodes: 1,
      gpusPerNode: 8,
      fabric: getFabricPreset('roce-400g'),
      gpu: h100,
      ncclVersion: '2.16',
    });
    expect(() => estimateCollective('all_reduce', 1 << 20, old, 'nvls')).toThrow(
      'NCCL 2.16 has no NVLS (2.17 on)',
    );
  });
});

describe('sweep sizes follow nccl-tests (issue 9, defect 16)', () => {
  it('multiplies by a whole factor and adds a fixed increment', () => {
    expect(sweepSizes(8, 128, { factor: 2 })).toEqual([8, 16, 32, 64, 128]);
    expect(sweepSizes(8, 100, { factor: 3 })).toEqual([8, 24, 72]);
    expect(sweepSizes(0, 4, { factor: 2 })).toEqual([0, 1, 2, 4]);
    expect(sweepSizes(1 << 20, 4 << 20, { stepBytes: 1 << 20 })).toEqual([
      1 << 20,
      2 << 20,
      3 << 20,
      4 << 20,
    ]);
    expect(sweepSizes(5, 5, { factor: 2 })).toEqual([5]);
  });

  it('refuses -b above -e, a factor that is not a whole number of at least 2, and runaway increments', () => {
    expect(() => sweepSizes(1024, 8, { factor: 2 })).toThrow(UsageError);
    expect(() => sweepSizes(1024, 8, { factor: 2 })).toThrow('invalid sizes: -b 1024 is above -e 8');
    for (const factor of [1, 1.0000001, 1.5, 0, -2, Number.NaN])
      expect(() => sweepSizes(8, 1024, { factor }), String(factor)).toThrow(UsageError);
    expect(() => sweepSizes(8, 1024, { stepBytes: 0 })).toThrow(UsageError);
    expect(() => sweepSizes(0, MAX_SWEEP_ROWS, { stepBytes: 1 })).toThrow(
      `asks for ${MAX_SWEEP_ROWS + 1} sizes; the limit is ${MAX_SWEEP_ROWS}`,
    );
    expect(sweepSizes(1, MAX_SWEEP_ROWS, { stepBytes: 1 })).toHaveLength(MAX_SWEEP_ROWS);
  });

  it('never prints a row of 0 bytes unless -b 0 asked for it, nor the same size twice, and always reaches the last whole size', () => {
    const op = fc.constantFrom<CollectiveOp>(...COLLECTIVE_OPS);
    fc.assert(
      fc.property(
        op,
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.integer({ min: 0, max: 1 << 20 }),
        fc.integer({ min: 0, max: 1 << 24 }),
        fc.integer({ min: 2, max: 8 }),
        (o, ranks, typeBytes, a, b, factor) => {
          const [min, max] = a <= b ? [a, b] : [b, a];
          const granule = ['all_gather', 'reduce_scatter', 'alltoall'].includes(o)
            ? typeBytes * ranks
            : typeBytes;
          let sizes: number[];
          try {
            sizes = alignedSweepSizes(o, ranks, typeBytes, min, max, { factor });
          } catch (error) {
            // Only when no requested size holds a whole element.
            expect(error).toBeInstanceOf(UsageError);
            expect(sweepSizes(min, max, { factor }).every((size) => size > 0 && size < granule)).toBe(true);
            return;
          }
          for (const [index, size] of sizes.entries()) {
            expect(size % granule).toBe(0);
            expect(size).toBeLessThanOrEqual(max);
            if (size === 0) expect(min === 0 && index === 0).toBe(true);
            if (index > 0) expect(size).toBeGreaterThan(sizes[index - 1] ?? -1);
          }
          const lastRequested = sweepSizes(min, max, { factor }).at(-1) ?? 0;
          expect(sizes.at(-1)).toBe(Math.floor(lastRequested / granule) * granule);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('runCollective records the increment and refuses an algorithm before any size', () => {
    const base = {
      op: 'all_reduce' as const,
      nodes: 2,
      gpusPerNode: 8,
      fabric: 'roce-400g',
      algo: 'auto' as const,
      minBytes: 1 << 20,
      maxBytes: 3 << 20,
      factor: 2,
    };
    const stepped = runCollective({ ...base, stepBytes: 1 << 20 });
    expect(stepped.metrics.rows.map((row) => row.sizeBytes)).toEqual([1 << 20, 2 << 20, 3 << 20]);
    expect(stepped.inputs).toMatchObject({ factor: null, stepBytes: 1 << 20 });
    expect(runCollective(base).inputs).toMatchObject({ factor: 2, stepBytes: null });
    expect(() => runCollective({ ...base, op: 'sendrecv', algo: 'ring', minBytes: 8, maxBytes: 4 })).toThrow(
      '--algo ring does not apply to sendrecv',
    );
  });
});

describe("more NICs than a GPU's PCIe link can feed (issue 10, part 4)", () => {
  it('is valid: busbw is bounded by the PCIe link, with a warning naming both rates', () => {
    const result = runCollective({
      op: 'all_reduce',
      nodes: 2,
      gpusPerNode: 1,
      nicsPerNode: 16,
      fabric: 'roce-400g',
      gpu: 'h100-sxm',
      algo: 'auto',
      minBytes: 1 << 30,
      maxBytes: 1 << 30,
      factor: 2,
    });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings?.[0]).toMatch(
      /the node's 16 NICs carry 770\.2 GB\/s but its 1 GPU\(s\) can feed them only 50\.4 GB\/s over their PCIe links: busbw is bounded by PCIe/,
    );
    expect(result.metrics.peakBusbwGBps).toBeLessThanOrEqual(50.4);
    const fed = runCollective({
      op: 'all_reduce',
      nodes: 2,
      gpusPerNode: 8,
      nicsPerNode: 8,
      fabric: 'roce-400g',
      gpu: 'h100-sxm',
      algo: 'auto',
      minBytes: 1 << 30,
      maxBytes: 1 << 30,
      factor: 2,
    });
    expect(fed.warnings ?? []).toEqual([]);
  });
});
