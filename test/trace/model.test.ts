/** modelFor: the model room's predictions and plan's step time behind `aifabric trace --fabric / --job`. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { planJob, predictCollective } from '../../src/model/index.js';
import { loadJobFile } from '../../src/spec/index.js';
import { analyseTrace, gpuPresetForDevice, modelFor } from '../../src/trace/index.js';
import { generateFacts } from './generate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const JOB = path.resolve(here, '../../examples/jobs/llama3-70b-8xh100.yaml');

describe('modelFor', () => {
  it('predicts with estimateCollective on the group shape', () => {
    const model = modelFor('roce-100g', 'a100-40gb', { nodes: 2, gpusPerNode: 8 });
    const want = predictCollective({
      op: 'all_reduce',
      nodes: 2,
      gpusPerNode: 8,
      fabric: 'roce-100g',
      gpu: 'a100-40gb',
      sizeBytes: 64 << 20,
    }).timeUs;
    expect(model.predict('all_reduce', 64 << 20, 16, 2, 8)).toBe(want);
    // send/recv move bytes like sendrecv; an op the model does not know has no prediction.
    expect(model.predict('send', 1 << 20, 2, 1, 2)).toBe(
      predictCollective({
        op: 'sendrecv',
        nodes: 1,
        gpusPerNode: 2,
        fabric: 'roce-100g',
        gpu: 'a100-40gb',
        sizeBytes: 1 << 20,
      }).timeUs,
    );
    expect(model.predict('Generic', 1 << 20, 2, 1, 2)).toBeNull();
    expect(model.fabric).toBe('roce-100g');
    expect(model.stepUs).toBeUndefined();
  });

  it('takes the GPU from the trace device when --gpu is not given', () => {
    expect(gpuPresetForDevice('Tesla V100-SXM2-32GB')?.id).toBe('v100-sxm2');
    expect(gpuPresetForDevice('NVIDIA H100 80GB HBM3')?.id).toBe('h100-sxm');
    expect(gpuPresetForDevice('NVIDIA H100 PCIe')?.id).toBe('h100-pcie');
    expect(gpuPresetForDevice('AMD Instinct MI300X')).toBeNull();
    const model = modelFor('roce-100g', undefined, {
      nodes: 1,
      gpusPerNode: 8,
      device: 'Tesla V100-SXM2-32GB',
    });
    expect(model.gpu).toBe('v100-sxm2');
    expect(model.notes?.[0]).toContain('v100-sxm2');
  });

  it('with a job: plan step time as the predicted step, from a path or a resolved job', () => {
    const plan = planJob(loadJobFile(JOB)).metrics.stepTimeMs * 1000;
    const fromPath = modelFor(undefined, undefined, { nodes: 1, gpusPerNode: 4 }, JOB);
    expect(fromPath.stepUs).toBeCloseTo(plan, 9);
    const fromJob = modelFor('ignored', 'ignored', { nodes: 1, gpusPerNode: 4 }, loadJobFile(JOB).resolve());
    expect(fromJob.stepUs).toBeCloseTo(plan, 9);
    const r = analyseTrace(
      generateFacts({ ranks: 4, collectivesPerStep: 2, ops: [{ op: 'all_reduce', sizeBytes: 16 << 20 }] }),
      { model: fromPath },
    );
    expect(r.metrics.iterations[0]?.predictedStepUs).toBeCloseTo(plan, 9);
    const row = r.metrics.collectives[0];
    expect(row?.predictedUs).toBeGreaterThan(0);
    expect(row?.modelFraction).toBeCloseTo(row!.predictedUs! / row!.trueTimeUs!, 12);
    expect(r.warnings?.some((w) => w.includes('the predicted step is the job'))).toBe(true);
  });

  it('refuses a model with neither fabric nor job', () => {
    expect(() => modelFor(undefined, 'h100-sxm', { nodes: 1, gpusPerNode: 8 })).toThrow(/--fabric/);
  });
});
