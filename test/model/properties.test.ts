import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COLLECTIVE_OPS, type CollectiveOp } from '../../src/model/busbw.js';
import { buildShape } from '../../src/model/collective-shape.js';
import { applicableAlgorithms, estimateCollective } from '../../src/model/collectives.js';
import { predictCollective } from '../../src/model/predict.js';
import { fabricPresets, getFabricPreset, getGpuPreset } from '../../src/spec/presets/index.js';
import type { FabricSpec } from '../../src/spec/fabric.js';

const op = fc.constantFrom<CollectiveOp>(...COLLECTIVE_OPS);
const fabricId = fc.constantFrom(...fabricPresets.map((preset) => preset.id));
const shapeArb = fc.record({
  nodes: fc.integer({ min: 1, max: 256 }),
  gpusPerNode: fc.constantFrom(1, 2, 4, 8),
  nicsPerNode: fc.constantFrom(1, 2, 4, 8),
});
const size = fc.integer({ min: 0, max: 2 ** 34 });

describe('model invariants', () => {
  it('more bandwidth never slows a collective', () => {
    fc.assert(
      fc.property(op, shapeArb, fabricId, size, fc.double({ min: 1e9, max: 1e12, noNaN: true }), fc.double({ min: 1, max: 10, noNaN: true }), (o, shape, fabric, s, b, scale) => {
        const slow = predictCollective({ op: o, ...shape, fabric, sizeBytes: s, bandwidthBps: b });
        const fast = predictCollective({ op: o, ...shape, fabric, sizeBytes: s, bandwidthBps: b * scale });
        expect(fast.timeUs).toBeLessThanOrEqual(slow.timeUs * (1 + 1e-12));
      }),
      { numRuns: 300 },
    );
  });

  it('a larger message never finishes sooner', () => {
    fc.assert(
      fc.property(op, shapeArb, fabricId, size, size, fc.constantFrom<'auto' | 'ring'>('auto', 'ring'), (o, shape, fabric, a, b, algo) => {
        const [small, large] = a <= b ? [a, b] : [b, a];
        // ring does not apply to the point-to-point ops (alltoall, sendrecv): they take auto only.
        const chosen = applicableAlgorithms(o).includes(algo) ? algo : 'auto';
        const t1 = predictCollective({ op: o, ...shape, fabric, algo: chosen, sizeBytes: small }).timeUs;
        const t2 = predictCollective({ op: o, ...shape, fabric, algo: chosen, sizeBytes: large }).timeUs;
        expect(t2).toBeGreaterThanOrEqual(t1 * (1 - 1e-12));
      }),
      { numRuns: 300 },
    );
  });

  it('more loss never speeds TCP up', () => {
    const tcpIds = fabricPresets.filter((preset) => preset.transport === 'tcp').map((preset) => preset.id);
    fc.assert(
      fc.property(op, shapeArb, fc.constantFrom(...tcpIds), size, fc.double({ min: 0, max: 0.2, noNaN: true }), fc.double({ min: 0, max: 0.2, noNaN: true }), (o, shape, id, s, p1, p2) => {
        const base = getFabricPreset(id);
        const withLoss = (lossRate: number): FabricSpec => ({ ...base, tcp: { ...base.tcp!, lossRate } });
        const [low, high] = p1 <= p2 ? [p1, p2] : [p2, p1];
        const tLow = predictCollective({ op: o, ...shape, fabric: withLoss(low), sizeBytes: s }).timeUs;
        const tHigh = predictCollective({ op: o, ...shape, fabric: withLoss(high), sizeBytes: s }).timeUs;
        expect(tHigh).toBeGreaterThanOrEqual(tLow * (1 - 1e-12));
      }),
      { numRuns: 300 },
    );
  });

  it('ring busbw never exceeds the line-rate bound of the node\'s NICs', () => {
    fc.assert(
      fc.property(fc.constantFrom<CollectiveOp>('all_reduce', 'all_gather', 'reduce_scatter'), shapeArb, fabricId, size, (o, shape, fabric, s) => {
        fc.pre(shape.nodes >= 2);
        const estimate = predictCollective({ op: o, ...shape, fabric, algo: 'ring', sizeBytes: s });
        const lineGBps = (getFabricPreset(fabric).lineRateGbps / 8) * shape.nicsPerNode;
        expect(estimate.busbwGBps).toBeLessThanOrEqual(lineGBps);
      }),
      { numRuns: 300 },
    );
  });

  it('RDMA never loses to TCP at equal line rate', () => {
    const pairs: [string, string][] = [];
    for (const tcp of fabricPresets.filter((preset) => preset.transport === 'tcp')) {
      for (const rdma of fabricPresets.filter((preset) => preset.transport !== 'tcp' && preset.lineRateGbps === tcp.lineRateGbps)) pairs.push([tcp.id, rdma.id]);
    }
    expect(pairs.length).toBeGreaterThan(3);
    fc.assert(
      fc.property(op, shapeArb, fc.constantFrom(...pairs), size, (o, shape, [tcp, rdma], s) => {
        const tTcp = predictCollective({ op: o, ...shape, fabric: tcp, sizeBytes: s }).timeUs;
        const tRdma = predictCollective({ op: o, ...shape, fabric: rdma, sizeBytes: s }).timeUs;
        expect(tRdma).toBeLessThanOrEqual(tTcp);
      }),
      { numRuns: 300 },
    );
  });

  it('busbw follows nccl-tests\' factors exactly', () => {
    const shape = buildShape({ nodes: 4, gpusPerNode: 8, fabric: getFabricPreset('roce-400g'), gpu: getGpuPreset('h100-sxm') });
    const n = 32;
    const factors: Record<CollectiveOp, number> = {
      all_reduce: (2 * (n - 1)) / n,
      all_gather: (n - 1) / n,
      reduce_scatter: (n - 1) / n,
      alltoall: (n - 1) / n,
      broadcast: 1,
      reduce: 1,
      sendrecv: 1,
    };
    for (const o of COLLECTIVE_OPS) {
      const estimate = estimateCollective(o, 1 << 26, shape);
      expect(estimate.busbwGBps / estimate.algbwGBps).toBeCloseTo(factors[o], 12);
    }
  });
});
