/** Preset lookup: exact ids, case-insensitive; an unknown id lists the valid ones. */
import { UsageError } from '../../core/errors.js';
import type { FabricSpec } from '../fabric.js';
import type { GpuSpec } from '../gpu.js';
import type { ModelSpec } from '../model-spec.js';
import { fabricPresets } from './fabrics.js';
import { gpuPresets } from './gpus.js';
import { modelPresets } from './models.js';

export { fabricPresets, gpuPresets, modelPresets };

function lookup<T extends { id: string }>(presets: readonly T[], what: string, id: string): T {
  const match = presets.find((preset) => preset.id.toLowerCase() === id.trim().toLowerCase());
  if (!match) {
    throw new UsageError(
      `unknown ${what} preset "${id}" (expected one of ${presets.map((preset) => preset.id).join(', ')})`,
    );
  }
  return match;
}

export const getFabricPreset = (id: string): FabricSpec => lookup(fabricPresets, 'fabric', id);
export const getGpuPreset = (id: string): GpuSpec => lookup(gpuPresets, 'GPU', id);
export const getModelPreset = (id: string): ModelSpec => lookup(modelPresets, 'model', id);

export function resolveFabric(fabric: string | FabricSpec): FabricSpec {
  return typeof fabric === 'string' ? getFabricPreset(fabric) : fabric;
}
export function resolveGpu(gpu: string | GpuSpec): GpuSpec {
  return typeof gpu === 'string' ? getGpuPreset(gpu) : gpu;
}
export function resolveModel(model: string | ModelSpec): ModelSpec {
  return typeof model === 'string' ? getModelPreset(model) : model;
}
