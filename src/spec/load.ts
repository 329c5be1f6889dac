/** Job and cluster files: read, validate, resolve, all errors at their `file:line:col`. */
import { ClusterSchema } from './cluster.js';
import { JobSchema, type JobFileSpec } from './job.js';
import {
  resolveCluster,
  resolveJob,
  type Cluster,
  type ClusterOverrides,
  type Job,
  type JobOverrides,
} from './resolve.js';
import { loadYamlFile, parseYaml, type LoadedYaml } from './yaml-loader.js';

export interface LoadedJob {
  spec: JobFileSpec;
  source: LoadedYaml<JobFileSpec>;
  resolve(overrides?: JobOverrides): Job;
}

function wrapJob(source: LoadedYaml<JobFileSpec>): LoadedJob {
  const loaded: LoadedJob = {
    spec: source.value,
    source,
    resolve: (overrides = {}) => resolveJob(source.value, overrides, source.locate),
  };
  // Resolve once with no overrides so a broken file fails at load time, before anything else runs.
  loaded.resolve();
  return loaded;
}

export function loadJobFile(path: string): LoadedJob {
  return wrapJob(loadYamlFile(path, JobSchema));
}

export function parseJobYaml(text: string, file = '<job>'): LoadedJob {
  return wrapJob(parseYaml(text, file, JobSchema));
}

export function loadClusterFile(path: string, overrides: ClusterOverrides = {}): Cluster {
  const source = loadYamlFile(path, ClusterSchema);
  return resolveCluster(source.value, overrides, source.locate);
}
