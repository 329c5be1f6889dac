import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseJobYaml } from '../../src/spec/load.js';
import { fabricPresets, getFabricPreset } from '../../src/spec/presets/index.js';
import type { FabricSpec } from '../../src/spec/fabric.js';
import { DEFAULT_JOB_YAML } from '../../src/demo/default-job.js';
import { compareFabrics, scaleJob, splitPairs } from '../../src/model/plan.js';
import { trainingStep } from '../../src/model/training-step.js';
import {
  counterpartPreset,
  ncclNetDescription,
  ncclNetOf,
  transportSplit,
  transportSplitLine,
  type TransportSplit,
} from '../../src/model/transport-split.js';

const loaded = parseJobYaml(DEFAULT_JOB_YAML, 'demo.yaml');
const modelStepMs = (fabric: FabricSpec): number => trainingStep(loaded.resolve({ fabric })).stepTimeMs;
const SPLIT_LINE =
  /^(TCP|RoCE|InfiniBand) \d+G vs (TCP|RoCE|InfiniBand) \d+G: \d+\.\d{2}x = \d+\.\d{2} line rate x \d+\.\d{2} transport$/;

function expectMultipliesBack(split: TransportSplit): void {
  expect(Math.abs(split.lineRate * split.transport - split.total)).toBeLessThan(1e-9);
  expect(split.total).toBe(split.from.stepTimeMs / split.to.stepTimeMs);
}

describe('transportSplit on the demo job', () => {
  it('splits TCP 100G vs RoCE 400G through the tcp-400g preset, and the factors multiply back to the total', () => {
    const split = transportSplit(
      getFabricPreset('tcp-100g'),
      getFabricPreset('roce-400g'),
      modelStepMs,
      fabricPresets,
    );
    expectMultipliesBack(split);
    expect(split.intermediate).toMatchObject({
      fabric: 'tcp-400g',
      derivation: 'preset',
      transport: 'tcp',
      lineRateGbps: 400,
    });
    expect(split.lineRate).toBeCloseTo(
      modelStepMs(getFabricPreset('tcp-100g')) / modelStepMs(getFabricPreset('tcp-400g')),
      12,
    );
    expect(split.transport).toBeCloseTo(
      modelStepMs(getFabricPreset('tcp-400g')) / modelStepMs(getFabricPreset('roce-400g')),
      12,
    );
    // Both effects are real in the model: neither factor is 1, and each is smaller than the whole.
    expect(split.lineRate).toBeGreaterThan(1.01);
    expect(split.transport).toBeGreaterThan(1.01);
    expect(split.total).toBeGreaterThan(split.lineRate);
    expect(split.total).toBeGreaterThan(split.transport);
    expect(transportSplitLine(split)).toMatch(SPLIT_LINE);
    expect(transportSplitLine(split).startsWith('TCP 100G vs RoCE 400G: ')).toBe(true);
  });

  it('gives a line-rate factor of exactly 1 for fabrics of the same line rate', () => {
    for (const [from, to] of [
      ['tcp-400g', 'roce-400g'],
      ['tcp-100g', 'ib-edr-100g'],
      ['roce-400g', 'ib-ndr-400g'],
    ] as const) {
      const split = transportSplit(getFabricPreset(from), getFabricPreset(to), modelStepMs, fabricPresets);
      expect(split.lineRate).toBe(1);
      expect(split.transport).toBe(split.total);
      expect(split.intermediate.derivation).toBe('from');
    }
  });

  it('gives a transport factor of exactly 1 for fabrics of the same transport', () => {
    const split = transportSplit(
      getFabricPreset('roce-100g'),
      getFabricPreset('roce-400g'),
      modelStepMs,
      fabricPresets,
    );
    expect(split.transport).toBe(1);
    expect(split.lineRate).toBe(split.total);
    expect(split.total).toBeGreaterThan(1);
  });

  it('overrides the line rate, and says so, when no preset of the transport has the other rate', () => {
    const split = transportSplit(
      getFabricPreset('tcp-100g'),
      getFabricPreset('roce-800g'),
      modelStepMs,
      fabricPresets,
    );
    expect(split.intermediate.derivation).toBe('lineRateOverride');
    expect(split.intermediate.fabric).toBe('tcp-100g@800g');
    expect(split.intermediate.lineRateGbps).toBe(800);
    expect(split.intermediate.transport).toBe('tcp');
    expectMultipliesBack(split);
  });

  it('keeps a virtualised TCP fabric virtualised on the line-rate step', () => {
    const split = transportSplit(
      getFabricPreset('tcp-100g-virtualized'),
      getFabricPreset('roce-400g'),
      modelStepMs,
      fabricPresets,
    );
    // tcp-400g is bare metal: moving to it would also take the hypervisor away, so the rate is overridden instead.
    expect(split.intermediate.derivation).toBe('lineRateOverride');
    expect(split.intermediate.fabric).toBe('tcp-100g-virtualized@400g');
  });
});

describe('transportSplit as a pure function', () => {
  const rates = [25, 100, 200, 400, 800];
  it('multiplies back to the total for any step times, and calls the model once per distinct fabric', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...fabricPresets),
        fc.constantFrom(...fabricPresets),
        fc.dictionary(
          fc.constantFrom(...rates.map(String), 'x'),
          fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        ),
        (from, to, byRate) => {
          const calls = new Map<FabricSpec, number>();
          const stepTimeMs = (fabric: FabricSpec): number => {
            calls.set(fabric, (calls.get(fabric) ?? 0) + 1);
            return (
              (byRate[String(fabric.lineRateGbps)] ?? 7) * (fabric.transport === 'tcp' ? 1.3 : 1) +
              fabric.perMessageLatencyUs
            );
          };
          const split = transportSplit(from, to, stepTimeMs, fabricPresets);
          expect(Math.abs(split.lineRate * split.transport - split.total)).toBeLessThan(
            1e-9 * Math.max(1, split.total),
          );
          if (from.lineRateGbps === to.lineRateGbps) expect(split.lineRate).toBe(1);
          else if (from.transport === to.transport) expect(split.transport).toBe(1);
          expect(split.intermediate.transport).toBe(from.transport);
          expect(split.intermediate.lineRateGbps).toBe(to.lineRateGbps);
          expect(Math.max(...calls.values())).toBe(1);
        },
      ),
    );
  });
});

describe('counterparts and NCCL nets', () => {
  it('pairs a TCP fabric with RoCE of its rate, an RDMA fabric with plain TCP of its rate', () => {
    expect(counterpartPreset(getFabricPreset('tcp-100g'), fabricPresets)?.id).toBe('roce-100g');
    expect(counterpartPreset(getFabricPreset('tcp-25g'), fabricPresets)).toBeUndefined();
    expect(counterpartPreset(getFabricPreset('roce-400g'), fabricPresets)?.id).toBe('tcp-400g');
    expect(counterpartPreset(getFabricPreset('ib-edr-100g'), fabricPresets)?.id).toBe('tcp-100g');
    expect(counterpartPreset(getFabricPreset('ib-xdr-800g'), fabricPresets)).toBeUndefined();
  });

  it('says which NCCL network transport a preset stands for', () => {
    expect(ncclNetOf(getFabricPreset('tcp-100g'))).toBe('Socket');
    expect(ncclNetDescription(getFabricPreset('tcp-100g'))).toBe('NET/Socket (kernel TCP, host staging)');
    expect(ncclNetOf(getFabricPreset('roce-400g'))).toBe('IB');
    expect(ncclNetOf(getFabricPreset('ib-ndr-400g'))).toBe('IB');
    expect(ncclNetOf({ ...getFabricPreset('tcp-100g'), ncclNet: 'GPUDirectTCPX_v7' })).toBe(
      'GPUDirectTCPX_v7',
    );
    expect(ncclNetDescription(getFabricPreset('tcpx-200g'))).toBe('GPUDirectTCPX_v7');
    expect(counterpartPreset(getFabricPreset('roce-200g'), fabricPresets)).toBeUndefined(); // no plain kernel-TCP 200G preset: tcpx-200g is devmem TCP
  });
});

describe('compare and scale with counterparts and splits', () => {
  it('compare adds the same-rate counterparts beside the fabrics asked for, marked, and carries the splits', () => {
    const result = compareFabrics(loaded, ['tcp-100g', 'roce-400g', 'ib-ndr-400g']);
    const rows = result.metrics.rows;
    expect(
      rows.map((row) => [row.fabric, row.addedAsCounterpart ?? false, row.counterpartOf ?? null]),
    ).toEqual([
      ['tcp-100g', false, null],
      ['roce-100g', true, 'tcp-100g'],
      ['roce-400g', false, null],
      ['tcp-400g', true, 'roce-400g'],
      ['ib-ndr-400g', false, null],
    ]);
    expect(rows.map((row) => row.ncclNet)).toEqual(['Socket', 'IB', 'IB', 'Socket', 'IB']);
    expect(result.metrics.splits.map((split) => `${split.from.fabric}>${split.to.fabric}`)).toEqual([
      'tcp-100g>roce-400g',
      'tcp-100g>ib-ndr-400g',
    ]);
    const split = result.metrics.split!;
    expect(split).toBe(result.metrics.splits[0]);
    expect(Object.keys(split).sort()).toEqual([
      'from',
      'intermediate',
      'lineRate',
      'to',
      'total',
      'transport',
    ]);
    expect(split.from.stepTimeMs).toBe(rows[0]!.stepTimeMs);
    expect(split.intermediate.stepTimeMs).toBe(rows[3]!.stepTimeMs);
    expectMultipliesBack(split);
    // Serialisable as it stands: the envelope goes to --json unchanged.
    expect(JSON.parse(JSON.stringify(result)).metrics.split).toEqual(split);
  });

  it('compare leaves counterparts out on request and adds none the user already asked for', () => {
    expect(
      compareFabrics(loaded, ['tcp-100g', 'roce-400g'], {}, undefined, {
        counterparts: false,
      }).metrics.rows.map((row) => row.fabric),
    ).toEqual(['tcp-100g', 'roce-400g']);
    expect(
      compareFabrics(loaded, ['tcp-100g', 'roce-100g', 'ib-edr-100g']).metrics.rows.map((row) => row.fabric),
    ).toEqual(['tcp-100g', 'roce-100g', 'ib-edr-100g']);
    const single = compareFabrics(loaded, ['roce-400g'], {}, undefined, { counterparts: false });
    expect(single.metrics.split).toBeNull();
    expect(single.metrics.splits).toEqual([]);
  });

  it('pairs each TCP fabric with each RDMA one, else the first with the others', () => {
    const ids = (names: string[]): string[] =>
      splitPairs(names.map(getFabricPreset)).map(([a, b]) => `${a.id}>${b.id}`);
    expect(ids(['roce-400g', 'tcp-100g', 'tcp-400g'])).toEqual(['tcp-100g>roce-400g', 'tcp-400g>roce-400g']);
    expect(ids(['roce-100g', 'roce-400g', 'ib-ndr-400g'])).toEqual([
      'roce-100g>roce-400g',
      'roce-100g>ib-ndr-400g',
    ]);
  });

  it('scale shows counterparts beside the fabrics asked for, keeps them out of the pay-off point, and splits per node count', () => {
    const result = scaleJob(loaded, [1, 8], ['tcp-100g', 'roce-400g']);
    const series = result.metrics.fabrics;
    expect(series.map((entry) => [entry.fabric, entry.addedAsCounterpart ?? false])).toEqual([
      ['tcp-100g', false],
      ['roce-100g', true],
      ['roce-400g', false],
      ['tcp-400g', true],
    ]);
    expect(result.metrics.rdmaPaysOffStatement).toMatch(
      /roce-400g is \d\.\d\dx faster per step than tcp-100g/,
    );
    expect(result.metrics.splitsByNodes.map((entry) => entry.nodes)).toEqual([1, 8]);
    for (const { split } of result.metrics.splitsByNodes) expectMultipliesBack(split);
    expect(result.metrics.split).toEqual(result.metrics.splitsByNodes[1]!.split);
    const compared = compareFabrics(loaded, ['tcp-100g', 'roce-400g']).metrics.split!;
    expect(result.metrics.split!.total).toBeCloseTo(compared.total, 12);
    expect(
      scaleJob(loaded, [1], ['tcp-100g'], undefined, { counterparts: false }).metrics.fabrics.map(
        (entry) => entry.fabric,
      ),
    ).toEqual(['tcp-100g']);
  });
});
