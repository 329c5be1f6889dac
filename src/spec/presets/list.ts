/** The presets as a result envelope, for `aifabric presets`. */
import { makeResult, type ResultEnvelope } from '../../core/envelope.js';
import type { FabricSpec } from '../fabric.js';
import type { GpuSpec } from '../gpu.js';
import type { ModelSpec } from '../model-spec.js';
import { fabricPresets, gpuPresets, modelPresets } from './index.js';

export interface PresetsMetrics {
  fabrics?: readonly FabricSpec[];
  gpus?: readonly GpuSpec[];
  models?: readonly ModelSpec[];
}

export function listPresets(kind?: 'fabrics' | 'gpus' | 'models'): ResultEnvelope<PresetsMetrics> {
  const metrics: PresetsMetrics = {};
  if (!kind || kind === 'fabrics') metrics.fabrics = fabricPresets;
  if (!kind || kind === 'gpus') metrics.gpus = gpuPresets;
  if (!kind || kind === 'models') metrics.models = modelPresets;
  return makeResult('presets', { kind: kind ?? 'all' }, metrics);
}
