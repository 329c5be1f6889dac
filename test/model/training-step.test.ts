import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseJobYaml } from '../../src/spec/load.js';
import { trainingStep } from '../../src/model/training-step.js';
import {
  parameterCounts,
  storedActivationBytesPerLayer,
  trainingFlopsPerToken,
} from '../../src/model/flops.js';
import { expectedMaxStandardNormal, stragglerPenalty } from '../../src/model/stragglers.js';
import { getModelPreset } from '../../src/spec/presets/index.js';
import { scaleJob } from '../../src/model/plan.js';
import { DEFAULT_JOB_YAML } from '../../src/demo/default-job.js';

function job(
  extra: string,
  cluster = 'nodes: 1\n  gpusPerNode: 1\n  fabric: roce-400g',
  batch = 64,
): ReturnType<ReturnType<typeof parseJobYaml>['resolve']> {
  return parseJobYaml(
    `cluster:\n  ${cluster}\nmodel: llama3-8b\nsequenceLength: 4096\nglobalBatchSize: ${batch}\n${extra}`,
    't.yaml',
  ).resolve();
}

describe('parameter counts', () => {
  it('reproduce the published sizes', () => {
    expect(parameterCounts(getModelPreset('llama3-8b')).total / 1e9).toBeCloseTo(8.03, 1);
    expect(parameterCounts(getModelPreset('llama3-70b')).total / 1e9).toBeCloseTo(70.6, 0);
    expect(parameterCounts(getModelPreset('llama3-405b')).total / 1e9).toBeGreaterThan(400);
    expect(parameterCounts(getModelPreset('llama3-405b')).total / 1e9).toBeLessThan(410);
    expect(parameterCounts(getModelPreset('gpt3-175b')).total / 1e9).toBeCloseTo(175, -1);
    const mixtral = parameterCounts(getModelPreset('mixtral-8x7b'));
    expect(mixtral.total / 1e9).toBeCloseTo(46.7, 0);
    expect(mixtral.activeMatmul / 1e9).toBeCloseTo(12.9, 0);
  });
});

describe('training step', () => {
  it('on one GPU is pure compute: MFU equals the compute efficiency', () => {
    const step = trainingStep(job(''));
    expect(step.exposedCommMs).toBe(0);
    expect(step.mfu).toBeCloseTo(0.55, 12);
    const flops = trainingFlopsPerToken(getModelPreset('llama3-8b'), 4096) * 64 * 4096;
    expect(step.computeMs).toBeCloseTo((flops / (989e12 * 0.55)) * 1000, 6);
  });

  it('charges the pipeline bubble (pp - 1) / m of compute', () => {
    const resolved = job(
      'parallelism:\n  pp: 4\n  dp: 2\n',
      'nodes: 1\n  gpusPerNode: 8\n  fabric: roce-400g',
    );
    const step = trainingStep(resolved);
    expect(resolved.microBatches).toBe(32);
    expect(step.bubbleMs).toBeCloseTo((3 / 32) * step.computeMs, 9);
  });

  it('makes FSDP move more data than DDP, and TCP slower than RDMA', () => {
    const cluster = 'nodes: 4\n  gpusPerNode: 8\n  fabric: tcp-100g';
    const ddp = trainingStep(job('', cluster));
    const fsdp = trainingStep(job('sharding: fsdp\n', cluster));
    expect(fsdp.commMs.dp).toBeGreaterThan(ddp.commMs.dp);
    const rdma = trainingStep(job('', 'nodes: 4\n  gpusPerNode: 8\n  fabric: roce-100g'));
    expect(rdma.stepTimeMs).toBeLessThan(ddp.stepTimeMs);
    expect(ddp.hostCpuCoresPerNode).toBeGreaterThan(rdma.hostCpuCoresPerNode * 10);
  });

  it('more overlap never lengthens the step', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const cluster = 'nodes: 2\n  gpusPerNode: 8\n  fabric: tcp-25g';
          const slow = trainingStep(job(`overlap: ${low}\n`, cluster)).stepTimeMs;
          const fast = trainingStep(job(`overlap: ${high}\n`, cluster)).stepTimeMs;
          expect(fast).toBeLessThanOrEqual(slow * (1 + 1e-12));
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('non-GEMM kernels (training.memoryBoundKernels)', () => {
  // GPT-3 175B's layer shape: h 12288, 96 heads, MLP 4h, multi-head attention (Korthikanti et al. 2022, Table 3 model).
  const gpt = { ...getModelPreset('gpt3-175b'), gatedFfn: false, kvHeads: 96, ffnHidden: 4 * 12288 };
  const s = 2048;
  const sbh = s * 12288;
  const split = {
    microBatch: 1,
    sequenceLength: s,
    tp: 1,
    cp: 1,
    sequenceParallel: false,
    flashAttention: false,
  };
  it("reproduce Korthikanti et al.'s stored activations: 34 + 5as/h, 10 + 24/t + 5as/(ht) with TP, all over t with SP", () => {
    const scores = (5 * 96 * s) / 12288;
    expect(storedActivationBytesPerLayer(gpt, split)).toBeCloseTo(sbh * (34 + scores), 0);
    expect(storedActivationBytesPerLayer(gpt, { ...split, tp: 8 })).toBeCloseTo(
      sbh * (10 + 24 / 8 + scores / 8),
      0,
    );
    expect(storedActivationBytesPerLayer(gpt, { ...split, tp: 8, sequenceParallel: true })).toBeCloseTo(
      (sbh * (34 + scores)) / 8,
      0,
    );
    expect(storedActivationBytesPerLayer(gpt, { ...split, flashAttention: true })).toBeCloseTo(sbh * 34, 0);
    expect(storedActivationBytesPerLayer(gpt, { ...split, microBatch: 4 })).toBeCloseTo(
      4 * sbh * (34 + scores),
      0,
    );
    // Grouped-query attention stores smaller K and V; a gated MLP one more inner activation.
    expect(storedActivationBytesPerLayer({ ...gpt, kvHeads: 8 }, split)).toBeLessThan(
      storedActivationBytesPerLayer(gpt, split),
    );
    expect(storedActivationBytesPerLayer({ ...gpt, gatedFfn: true }, split)).toBeCloseTo(
      sbh * (34 + 8 + scores),
      0,
    );
  });

  it('add HBM time to compute only when asked, halving with twice the HBM bandwidth', () => {
    const base = trainingStep(job(''));
    expect(base.memoryBoundMs).toBe(0);
    const on = trainingStep(job('training:\n  memoryBoundKernels: true'));
    expect(on.memoryBoundMs).toBeGreaterThan(0);
    expect(on.computeMs).toBeCloseTo(base.computeMs + on.memoryBoundMs, 9);
    const flash = trainingStep(job('training:\n  memoryBoundKernels: true\n  flashAttention: true'));
    expect(flash.memoryBoundMs).toBeLessThan(on.memoryBoundMs);
    const resolved = job('training:\n  memoryBoundKernels: true');
    const gpu = resolved.cluster.gpu;
    const fast = trainingStep({
      ...resolved,
      cluster: { ...resolved.cluster, gpu: { ...gpu, hbmBandwidthTBps: 2 * gpu.hbmBandwidthTBps } },
    });
    expect(fast.memoryBoundMs).toBeCloseTo(on.memoryBoundMs / 2, 6);
  });
});

describe('stragglers', () => {
  it('Blom approximates the expected max of normals', () => {
    expect(expectedMaxStandardNormal(1)).toBe(0);
    expect(expectedMaxStandardNormal(2)).toBeCloseTo(0.564, 1); // exact 1/sqrt(pi)
    expect(expectedMaxStandardNormal(1000)).toBeCloseTo(3.24, 1);
  });

  it('seeded Monte Carlo agrees with order statistics and is deterministic', () => {
    const base = {
      commMs: 100,
      expectedTimeoutMs: 2,
      rtoMs: 200,
      ranks: 512,
      jitterCv: 0.05,
      samples: 20000,
      seed: 7,
    };
    const analytic = stragglerPenalty({ ...base, method: 'order-statistics' });
    const sampled = stragglerPenalty({ ...base, method: 'monte-carlo' });
    expect(
      Math.abs(sampled.jitterPenaltyMs - analytic.jitterPenaltyMs) / analytic.jitterPenaltyMs,
    ).toBeLessThan(0.03);
    expect(sampled.timeoutPenaltyMs).toBeGreaterThan(0.5);
    expect(sampled.timeoutPenaltyMs).toBeLessThan(4);
    expect(stragglerPenalty({ ...base, method: 'monte-carlo' })).toEqual(sampled);
  });
});

describe('scaling', () => {
  it('finds where RDMA pays off in the demo job, and says never when it cannot', () => {
    const loaded = parseJobYaml(DEFAULT_JOB_YAML, 'demo.yaml');
    const result = scaleJob(loaded, [1, 2, 4, 8], ['tcp-100g', 'roce-400g']);
    expect(result.metrics.rdmaPaysOffFromNodes).toBe(2);
    const tcp = result.metrics.fabrics[0]!.points;
    expect(tcp[0]!.scalingEfficiency).toBe(1);
    expect(tcp[3]!.scalingEfficiency).toBeLessThan(0.9);
    const same = scaleJob(loaded, [1], ['tcp-100g', 'roce-400g']);
    expect(same.metrics.rdmaPaysOffFromNodes).toBeNull();
    expect(same.metrics.rdmaPaysOffStatement).toMatch(/never/);
  });
});
