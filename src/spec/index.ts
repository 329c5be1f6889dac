/**
 * The spec room: zod schemas for fabrics, GPUs, models, clusters and jobs; YAML loading with
 * file:line:col errors; the presets and the field overrides (`--set`) applied to them.
 */
export {
  TransportSchema,
  TcpBehaviourSchema,
  FabricSchema,
  type Transport,
  type TcpBehaviour,
  type FabricSpec,
} from './fabric.js';
export { GpuSchema, pcieBandwidthGBps, type GpuSpec } from './gpu.js';
export { ModelSchema, type ModelSpec } from './model-spec.js';
export {
  TopologySchema,
  IntraNodeSchema,
  ClusterSchema,
  type ClusterTopology,
  type ClusterInput,
  type ClusterFileSpec,
} from './cluster.js';
export {
  ParallelismSchema,
  StragglerSchema,
  TrainingTechniquesSchema,
  TRAINING_TECHNIQUE_DEFAULTS,
  JobSchema,
  type JobFileSpec,
} from './job.js';
export {
  resolveCluster,
  resolveJob,
  type Cluster,
  type Parallelism,
  type Job,
  type ClusterOverrides,
  type JobOverrides,
} from './resolve.js';
export { loadJobFile, parseJobYaml, loadClusterFile, type LoadedJob } from './load.js';
export {
  fabricPresets,
  gpuPresets,
  modelPresets,
  getFabricPreset,
  getGpuPreset,
  getModelPreset,
  resolveFabric,
  resolveGpu,
  resolveModel,
} from './presets/index.js';
export { listPresets, type PresetsMetrics } from './presets/list.js';
export {
  readTextFile,
  parseYaml,
  loadYamlFile,
  semanticError,
  type SourceLocation,
  type LoadedYaml,
} from './yaml-loader.js';
export {
  OVERRIDE_SCOPES,
  emptyFieldOverrides,
  settableFields,
  parseFieldOverride,
  groupFieldOverrides,
  hasFieldOverrides,
  describeFieldOverrides,
  applyGpuOverrides,
  applyFabricOverrides,
  fieldOverridesFrom,
  type OverrideScope,
  type FieldOverride,
  type FieldOverrides,
  type HardwareFlags,
} from './overrides.js';
