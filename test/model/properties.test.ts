import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COLLECTIVE_OPS, type CollectiveOp } from '../../src/model/busbw.js';
import { buildShape } from '../../src/model/collective-shape.js';
import { ALGORITHM_CHOICES, applicableAlgorithms, estimateCollective } from '../../src/model/collectives.js';
import { UsageError } from '../../src/core/errors.js';
import { PROTOCOL_CHOICES } from '../../src/model/nccl-tuning.js';
import { gpuPresets } from '../../src/spec/presets/index.js';
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
      fc.property(
        op,
        shapeArb,
        fabricId,
        size,
        fc.double({ min: 1e9, max: 1e12, noNaN: true }),
        fc.double({ min: 1, max: 10, noNaN: true }),
        (o, shape, fabric, s, b, scale) => {
          const slow = predictCollective({ op: o, ...shape, fabric, sizeBytes: s, bandwidthBps: b });
          const fast = predictCollective({ op: o, ...shape, fabric, sizeBytes: s, bandwidthBps: b * scale });
          expect(fast.timeUs).toBeLessThanOrEqual(slow.timeUs * (1 + 1e-12));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a larger message never finishes sooner', () => {
    fc.assert(
      fc.property(
        op,
        shapeArb,
        fabricId,
        size,
        size,
        fc.constantFrom<'auto' | 'ring'>('auto', 'ring'),
        (o, shape, fabric, a, b, algo) => {
          const [small, large] = a <= b ? [a, b] : [b, a];
          // ring does not apply to the point-to-point ops (alltoall, sendrecv): they take auto only.
          const chosen = applicableAlgorithms(o).includes(algo) ? algo : 'auto';
          const t1 = predictCollective({ op: o, ...shape, fabric, algo: chosen, sizeBytes: small }).timeUs;
          const t2 = predictCollective({ op: o, ...shape, fabric, algo: chosen, sizeBytes: large }).timeUs;
          expect(t2).toBeGreaterThanOrEqual(t1 * (1 - 1e-12));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('more loss never speeds TCP up', () => {
    const tcpIds = fabricPresets.filter((preset) => preset.transport === 'tcp').map((preset) => preset.id);
    fc.assert(
      fc.property(
        op,
        shapeArb,
        fc.constantFrom(...tcpIds),
        size,
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        (o, shape, id, s, p1, p2) => {
          const base = getFabricPreset(id);
          const withLoss = (lossRate: number): FabricSpec => ({ ...base, tcp: { ...base.tcp!, lossRate } });
          const [low, high] = p1 <= p2 ? [p1, p2] : [p2, p1];
          const tLow = predictCollective({ op: o, ...shape, fabric: withLoss(low), sizeBytes: s }).timeUs;
          const tHigh = predictCollective({ op: o, ...shape, fabric: withLoss(high), sizeBytes: s }).timeUs;
          expect(tHigh).toBeGreaterThanOrEqual(tLow * (1 - 1e-12));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("ring busbw never exceeds the line-rate bound of the node's NICs", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<CollectiveOp>('all_reduce', 'all_gather', 'reduce_scatter'),
        shapeArb,
        fabricId,
        size,
        (o, shape, fabric, s) => {
          fc.pre(shape.nodes >= 2);
          const estimate = predictCollective({ op: o, ...shape, fabric, algo: 'ring', sizeBytes: s });
          const lineGBps = (getFabricPreset(fabric).lineRateGbps / 8) * shape.nicsPerNode;
          expect(estimate.busbwGBps).toBeLessThanOrEqual(lineGBps);
        },
      ),
      { numRuns: 300 },
    );
  });

  // Over EFA before p5, aws-ofi-nccl sets NCCL_PROTO=simple (src/platform-aws.c), a software choice
  // that costs a tiny ring many Simple hops inside the node where TCP runs LL; the transport itself
  // must still never lose, so an EFA pair is compared with both sides forced to Simple.
  it('RDMA never loses to TCP at equal line rate (EFA at the protocol its plugin forces)', () => {
    const pairs: [string, string][] = [];
    for (const tcp of fabricPresets.filter((preset) => preset.transport === 'tcp')) {
      for (const rdma of fabricPresets.filter(
        (preset) => preset.transport !== 'tcp' && preset.lineRateGbps === tcp.lineRateGbps,
      ))
        pairs.push([tcp.id, rdma.id]);
    }
    expect(pairs.length).toBeGreaterThan(3);
    fc.assert(
      fc.property(op, shapeArb, fc.constantFrom(...pairs), size, (o, shape, [tcp, rdma], s) => {
        const proto =
          getFabricPreset(rdma).transport === 'efa' && shape.nodes > 1 ? { proto: 'simple' as const } : {};
        const tTcp = predictCollective({ op: o, ...shape, fabric: tcp, sizeBytes: s, ...proto }).timeUs;
        const tRdma = predictCollective({ op: o, ...shape, fabric: rdma, sizeBytes: s, ...proto }).timeUs;
        expect(tRdma).toBeLessThanOrEqual(tTcp);
      }),
      { numRuns: 300 },
    );
  });

  // Issue 10: the same invariants for every algorithm and protocol NCCL runs, every GPU and GPUDirect on or off.
  const algo = fc.constantFrom(...ALGORITHM_CHOICES);
  const proto = fc.constantFrom(...PROTOCOL_CHOICES);
  const gpuId = fc.constantFrom(...gpuPresets.map((preset) => preset.id));
  const version = fc.constantFrom('2.12', '2.18', '2.20', '2.22', '2.25');
  /** The estimate, or null where NCCL would not run that algorithm / protocol on the shape (a UsageError). */
  const attempt = (f: () => { timeUs: number }): number | null => {
    try {
      return f().timeUs;
    } catch (error) {
      if (error instanceof UsageError) return null;
      throw error;
    }
  };

  it('CollNet with one GPU per node on an NVLS GPU is finite (fast-check counterexample: 2 x 1 B200, EDR, NCCL 2.12)', () => {
    const input = {
      op: 'all_reduce' as const,
      nodes: 2,
      gpusPerNode: 1,
      nicsPerNode: 1,
      fabric: 'ib-edr-100g',
      gpu: 'b200',
    };
    for (const sizeBytes of [0, 8, 1 << 20]) {
      const t = predictCollective({ ...input, algo: 'collnetdirect', ncclVersion: '2.12', sizeBytes }).timeUs;
      expect(Number.isFinite(t)).toBe(true);
    }
  });

  it('every algorithm and protocol: a larger message never finishes sooner, more bandwidth never slows it', () => {
    let checked = 0;
    fc.assert(
      fc.property(
        op,
        shapeArb,
        fabricId,
        gpuId,
        algo,
        proto,
        version,
        size,
        size,
        fc.double({ min: 1, max: 10, noNaN: true }),
        (o, shape, fabric, gpu, a, p, v, s1, s2, scale) => {
          const [small, large] = s1 <= s2 ? [s1, s2] : [s2, s1];
          const input = { op: o, ...shape, fabric, gpu, algo: a, proto: p, ncclVersion: v };
          const t1 = attempt(() => predictCollective({ ...input, sizeBytes: small }));
          const t2 = attempt(() => predictCollective({ ...input, sizeBytes: large }));
          if (t1 !== null && t2 !== null) {
            checked += 1;
            expect(t2).toBeGreaterThanOrEqual(t1 * (1 - 1e-12));
          }
          const bandwidthBps = getFabricPreset(fabric).lineRateGbps * 1e9;
          const slow = attempt(() => predictCollective({ ...input, sizeBytes: large, bandwidthBps }));
          const fast = attempt(() =>
            predictCollective({ ...input, sizeBytes: large, bandwidthBps: bandwidthBps * scale }),
          );
          if (slow !== null && fast !== null) expect(fast).toBeLessThanOrEqual(slow * (1 + 1e-12));
        },
      ),
      { numRuns: 1500 },
    );
    // About a quarter of the draws run; the rest pair an op with an algorithm or protocol NCCL refuses there.
    expect(checked).toBeGreaterThan(250);
  });

  it('GPUDirect RDMA off never speeds a collective up; a wider PCIe link never slows one', () => {
    const rdma = fabricPresets.filter((preset) => preset.transport !== 'tcp').map((preset) => preset.id);
    fc.assert(
      fc.property(op, shapeArb, fc.constantFrom(...rdma), gpuId, size, (o, shape, fabric, gpu, s) => {
        const on = predictCollective({
          op: o,
          ...shape,
          fabric,
          gpu,
          gpuDirectRdma: true,
          sizeBytes: s,
        }).timeUs;
        const off = predictCollective({
          op: o,
          ...shape,
          fabric,
          gpu,
          gpuDirectRdma: false,
          sizeBytes: s,
        }).timeUs;
        expect(off).toBeGreaterThanOrEqual(on * (1 - 1e-12));
        const spec = getGpuPreset(gpu);
        const narrow = predictCollective({
          op: o,
          ...shape,
          fabric,
          gpu: { ...spec, pcieLanes: 8 },
          sizeBytes: s,
        }).timeUs;
        const wide = predictCollective({
          op: o,
          ...shape,
          fabric,
          gpu: { ...spec, pcieLanes: 16 },
          sizeBytes: s,
        }).timeUs;
        expect(wide).toBeLessThanOrEqual(narrow * (1 + 1e-12));
      }),
      { numRuns: 300 },
    );
  });

  it("busbw follows nccl-tests' factors exactly", () => {
    const shape = buildShape({
      nodes: 4,
      gpusPerNode: 8,
      fabric: getFabricPreset('roce-400g'),
      gpu: getGpuPreset('h100-sxm'),
    });
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
