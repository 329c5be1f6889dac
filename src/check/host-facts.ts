/**
 * Facts several rule families need about one host, derived once from its captures: the NCCL
 * environment (with where each variable was set), the RDMA devices seen, and which of them
 * NCCL_IB_HCA selects, using NCCL's own matching (prefix unless `=`, `^` excludes, `:port`).
 */
import type { NcclDeviceList, NcclSettings } from '../parse/index.js';
import { capturesOf, type Capture, type HostCaptures } from './types.js';

export interface EnvVariable {
  value: string;
  capture: Capture<'nccl-env'>;
  line: number;
}

export interface HostNccl {
  settings: NcclSettings | null;
  variables: Map<string, EnvVariable>;
}

/** Later captures win, as a later `export` would in a job script. */
export function hostNccl(host: HostCaptures): HostNccl {
  const variables = new Map<string, EnvVariable>();
  let settings: NcclSettings | null = null;
  for (const capture of capturesOf(host, 'nccl-env')) {
    for (const entry of capture.facts.entries)
      variables.set(entry.name, { value: entry.value, capture, line: entry.line });
    settings = settings ? mergeSettings(settings, capture.facts.nccl) : capture.facts.nccl;
  }
  return { settings, variables };
}

function mergeSettings(earlier: NcclSettings, later: NcclSettings): NcclSettings {
  const merged = { ...earlier } as Record<string, unknown>;
  for (const [key, value] of Object.entries(later)) if (value !== null) merged[key] = value;
  return merged as unknown as NcclSettings;
}

export interface RdmaPortRef {
  device: string;
  port: number;
}

/** Every RDMA device name the host's captures mention. */
export function rdmaDeviceNames(host: HostCaptures): string[] {
  const names = new Set<string>();
  for (const capture of capturesOf(host, 'ibv-devinfo'))
    for (const device of capture.facts.devices) if (device.hcaId) names.add(device.hcaId);
  for (const capture of capturesOf(host, 'rdma-link'))
    for (const link of capture.facts.links) names.add(link.device);
  for (const capture of capturesOf(host, 'show-gids'))
    for (const entry of capture.facts.entries) names.add(entry.device);
  return [...names].sort();
}

function entryMatches(list: NcclDeviceList, entryName: string, device: string): boolean {
  return list.exactMatch ? device === entryName : device.startsWith(entryName);
}

/** Does NCCL_IB_HCA select this device (and port)? No list selects everything. */
export function hcaSelected(list: NcclDeviceList | null | undefined, device: string, port?: number): boolean {
  if (!list || list.entries.length === 0) return true;
  const hit = list.entries.some(
    (entry) =>
      entryMatches(list, entry.name, device) &&
      (entry.port === null || port === undefined || entry.port === port),
  );
  return list.exclude ? !hit : hit;
}

/** The NCCL_IB_HCA entries (of an include list) that match no device on the host. */
export function unmatchedHcaEntries(list: NcclDeviceList, devices: readonly string[]): string[] {
  if (list.exclude) return [];
  return list.entries
    .filter((entry) => !devices.some((device) => entryMatches(list, entry.name, device)))
    .map((entry) => (entry.port === null ? entry.name : `${entry.name}:${entry.port}`));
}
