/**
 * Without --fabric or --cluster, the captures often say enough: the link layer of the RDMA ports
 * gives the transport and their most common active rate gives the speed, which picks the preset.
 */
import { fabricPresets, type FabricSpec } from '../spec/index.js';
import { portViews } from './rules/rdma-ports.js';
import type { HostCaptures } from './types.js';

export function inferFabric(hosts: readonly HostCaptures[]): { fabric: FabricSpec; reason: string } | null {
  const ports = hosts
    .flatMap((host) => portViews(host))
    .filter((view) => view.state === 'ACTIVE' && view.linkLayer !== null);
  if (ports.length === 0) return null;
  const layers = new Map<string, number>();
  for (const view of ports) layers.set(view.linkLayer!, (layers.get(view.linkLayer!) ?? 0) + 1);
  const layer = [...layers.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const transport = layer === 'InfiniBand' ? 'ib' : layer === 'Ethernet' ? 'roce' : null;
  if (!transport) return null;
  const rates = ports
    .filter((view) => view.linkLayer === layer && view.activeRateGbps !== null)
    .map((view) => view.activeRateGbps!);
  if (rates.length === 0) return null;
  const counts = new Map<number, number>();
  for (const rate of rates) counts.set(rate, (counts.get(rate) ?? 0) + 1);
  const rate = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
  const candidates = fabricPresets.filter((preset) => preset.transport === transport);
  const fabric = candidates.reduce((best, preset) =>
    Math.abs(Math.log(preset.lineRateGbps / rate)) < Math.abs(Math.log(best.lineRateGbps / rate))
      ? preset
      : best,
  );
  return {
    fabric,
    reason: `fabric inferred as ${fabric.id} from ${ports.length} active ${layer} port(s) at ${rate} Gb/s; pass --fabric or --cluster to declare it`,
  };
}
