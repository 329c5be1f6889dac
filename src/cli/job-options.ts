/**
 * What `plan`, `compare` and `scale` share: the job file, reading the hardware and NCCL flags
 * (options.ts addHardwareOptions) into job overrides, and the help lines of the flags they have in common.
 */
import { UsageError } from '../core/errors.js';
import { MAX_NODES } from '../core/limits.js';
import { DEFAULT_NCCL_VERSION } from '../core/nccl-version.js';
import type { JobOverrides } from '../spec/index.js';

export const NODE_BOUNDS = { max: MAX_NODES, unit: 'nodes' };
export const COUNTERPARTS_HELP =
  'leave out the fabrics added beside each one asked for (the RoCE fabric of the same line rate beside a TCP one, the TCP one beside an RDMA one)';

export const NCCL_DEFAULT_HELP = `default: the cluster's ncclVersion, else ${DEFAULT_NCCL_VERSION}`;
export const BANDWIDTH_HELP =
  "payload bandwidth per NIC above 0, replacing the fabric's (e.g. 100Gbps, 12.5GB/s)";

export async function loadJob(file: string) {
  const { loadJobFile } = await import('../spec/index.js');
  return loadJobFile(file);
}

interface HardwareOptionValues {
  gdr?: boolean | undefined;
  pcie?: { pcieGen: number; pcieLanes: number };
  nvlinkBandwidth?: number;
  ncclVersion?: string;
  set?: string[] | undefined;
  bandwidth?: number;
}

/** The hardware and NCCL flags as job overrides; `--set` read here, with the field named on error. */
export async function hardwareOverrides(
  options: HardwareOptionValues,
  command: 'plan' | 'compare' | 'scale',
): Promise<JobOverrides> {
  const { fieldOverridesFrom } = await import('../spec/index.js');
  const fields = fieldOverridesFrom({
    ...(options.set !== undefined ? { set: options.set } : {}),
    ...(options.pcie !== undefined ? { pcie: options.pcie } : {}),
    ...(options.nvlinkBandwidth !== undefined ? { nvlinkBandwidthGBps: options.nvlinkBandwidth } : {}),
  });
  if (command === 'scale' && fields.cluster.nodes !== undefined) {
    throw new UsageError('--set cluster.nodes does not apply to scale: the node counts come from --nodes');
  }
  return {
    fields,
    ...(options.gdr !== undefined ? { gpuDirectRdma: options.gdr } : {}),
    ...(options.ncclVersion !== undefined ? { ncclVersion: options.ncclVersion } : {}),
    ...(options.bandwidth !== undefined ? { bandwidthBps: options.bandwidth } : {}),
  };
}
