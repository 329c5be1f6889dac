/**
 * Per-port RDMA facts merged from `ibv_devinfo [-v]` and `rdma link show`, restricted to the
 * ports NCCL_IB_HCA selects: the ports a job will actually use.
 */
import type { IbvDevice, IbvPort } from '../../parse/index.js';
import { hcaSelected, hostNccl } from '../host-facts.js';
import { capturesOf, type Capture, type HostCaptures } from '../types.js';

export interface PortView {
  device: string;
  port: number;
  /** PORT_ACTIVE / ACTIVE normalised to ACTIVE. */
  state: string | null;
  physState: string | null;
  linkLayer: string | null;
  activeMtuBytes: number | null;
  activeRateGbps: number | null;
  ibv: { capture: Capture<'ibv-devinfo'>; device: IbvDevice; port: IbvPort } | null;
  link: { capture: Capture<'rdma-link'>; line: number } | null;
}

const normaliseState = (state: string | null): string | null =>
  state === null
    ? null
    : state
        .replace(/^PORT_/, '')
        .replace(/\s*\(\d+\)$/, '')
        .toUpperCase();
const normalisePhys = (state: string | null): string | null =>
  state === null ? null : state.replace(/\s*\(\d+\)$/, '').toUpperCase();

export function portViews(host: HostCaptures): PortView[] {
  const views = new Map<string, PortView>();
  const get = (device: string, port: number): PortView => {
    const key = `${device}/${port}`;
    let view = views.get(key);
    if (!view) {
      view = {
        device,
        port,
        state: null,
        physState: null,
        linkLayer: null,
        activeMtuBytes: null,
        activeRateGbps: null,
        ibv: null,
        link: null,
      };
      views.set(key, view);
    }
    return view;
  };
  for (const capture of capturesOf(host, 'ibv-devinfo')) {
    for (const device of capture.facts.devices) {
      if (!device.hcaId) continue;
      for (const port of device.ports) {
        const view = get(device.hcaId, port.port);
        view.ibv = { capture, device, port };
        view.state = normaliseState(port.state) ?? view.state;
        view.physState = normalisePhys(port.physState) ?? view.physState;
        view.linkLayer = port.linkLayer ?? view.linkLayer;
        view.activeMtuBytes = port.activeMtuBytes ?? view.activeMtuBytes;
        view.activeRateGbps = port.activeRateGbps ?? view.activeRateGbps;
      }
    }
  }
  for (const capture of capturesOf(host, 'rdma-link')) {
    for (const link of capture.facts.links) {
      const view = get(link.device, link.port);
      view.link = { capture, line: link.line };
      // A port either tool shows as not up is down: keep the worse of the two readings.
      const state = normaliseState(link.state);
      if (state !== null && (view.state === null || state !== 'ACTIVE')) view.state = state;
      const phys = normalisePhys(link.physicalState);
      if (phys !== null && (view.physState === null || phys !== 'LINK_UP')) view.physState = phys;
    }
  }
  // show_gids names device ports too; they join with unknown state so the GID check can see them.
  for (const capture of capturesOf(host, 'show-gids'))
    for (const entry of capture.facts.entries) get(entry.device, entry.port);
  return [...views.values()].sort(
    (a, b) => a.device.localeCompare(b.device, undefined, { numeric: true }) || a.port - b.port,
  );
}

export function selectedPorts(host: HostCaptures): PortView[] {
  const list = hostNccl(host).settings?.ibHca ?? null;
  return portViews(host).filter((view) => hcaSelected(list, view.device, view.port));
}

export function portEvidence(view: PortView, value: string): string {
  if (view.ibv)
    return `${view.ibv.capture.source}:${view.ibv.port.line} ${view.device} port ${view.port} ${value}`;
  if (view.link) return `${view.link.capture.source}:${view.link.line} ${view.device}/${view.port} ${value}`;
  return `${view.device}/${view.port} ${value}`;
}
