/**
 * `ibv_devinfo` and `ibv_devinfo -v` (rdma-core libibverbs/examples/devinfo.c): per HCA its
 * firmware and GUIDs, per port its state, MTU, link layer, width, speed and, with -v, the GID table.
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export interface IbvGid {
  index: number;
  gid: string;
  /** As printed after the comma: `RoCE v2`, `IB/RoCE v1`; null on IB ports and older rdma-core. */
  type: string | null;
  roceVersion: 'v1' | 'v2' | null;
}

export interface IbvPort {
  port: number;
  line: number;
  /** `PORT_ACTIVE`, `PORT_DOWN`, `PORT_INIT`, `PORT_ARMED`. */
  state: string | null;
  maxMtuBytes: number | null;
  activeMtuBytes: number | null;
  smLid: number | null;
  portLid: number | null;
  /** `InfiniBand` or `Ethernet` (RoCE). */
  linkLayer: string | null;
  /** -v only: `4X (2)` gives 4 lanes. */
  activeWidthLanes: number | null;
  /** -v only: per-lane signalling rate, `25.0 Gbps (32)` gives 25. */
  activeSpeedGbpsPerLane: number | null;
  /** lanes times per-lane rate, the port's rate in Gbps; null unless both are printed. */
  activeRateGbps: number | null;
  /** -v only: `LINK_UP`, `POLLING`, `DISABLED`... */
  physState: string | null;
  gidTableLength: number | null;
  gids: IbvGid[];
  /** Every `key: value` of the port as printed. */
  fields: Record<string, string>;
}

export interface IbvDevice {
  /** null when the output was cut before the `hca_id:` line. */
  hcaId: string | null;
  line: number;
  transport: string | null;
  fwVer: string | null;
  nodeGuid: string | null;
  sysImageGuid: string | null;
  vendorId: string | null;
  vendorPartId: number | null;
  hwVer: string | null;
  boardId: string | null;
  physPortCnt: number | null;
  /** Every device-level `key: value` as printed. */
  fields: Record<string, string>;
  ports: IbvPort[];
}

export interface IbvDevinfoFacts {
  /** -v output: fields only the verbose form prints were seen. */
  verbose: boolean;
  devices: IbvDevice[];
}

const DETECT_PREFIX_CHARS = 64 * 1024;
// Keys only -v prints; their presence tells the two forms apart.
const PORT_KEYS = new Set(['state', 'max_mtu', 'active_mtu', 'sm_lid', 'port_lid', 'link_layer']);
const VERBOSE_KEYS = new Set([
  'max_mr_size',
  'max_qp',
  'active_width',
  'active_speed',
  'phys_state',
  'gid_tbl_len',
  'max_msg_sz',
]);

function detectIbvDevinfo(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (/^hca_id:\s*\S+/m.test(head)) return 0.95;
  if (/^\s+state:\s+PORT_(ACTIVE|DOWN|INIT|ARMED)\b/m.test(head)) return 0.85;
  if (/^\s+link_layer:\s+(Ethernet|InfiniBand)\s*$/m.test(head) && /^\s+active_mtu:/m.test(head)) return 0.8;
  return 0;
}

/** `PORT_ACTIVE (4)` -> `PORT_ACTIVE`; `4096 (5)` -> `4096`. */
function beforeParenthesis(value: string): string {
  return value.replace(/\s*\(.*\)\s*$/, '').trim();
}

function intOrNull(value: string | undefined): number | null {
  if (value === undefined) return null;
  const match = /^(0x[0-9a-fA-F]+|\d+)/.exec(value.trim());
  if (!match?.[1]) return null;
  return match[1].startsWith('0x') ? Number.parseInt(match[1], 16) : Number(match[1]);
}

function newDevice(hcaId: string | null, line: number): IbvDevice {
  return {
    hcaId,
    line,
    transport: null,
    fwVer: null,
    nodeGuid: null,
    sysImageGuid: null,
    vendorId: null,
    vendorPartId: null,
    hwVer: null,
    boardId: null,
    physPortCnt: null,
    fields: {},
    ports: [],
  };
}

function newPort(port: number, line: number): IbvPort {
  return {
    port,
    line,
    state: null,
    maxMtuBytes: null,
    activeMtuBytes: null,
    smLid: null,
    portLid: null,
    linkLayer: null,
    activeWidthLanes: null,
    activeSpeedGbpsPerLane: null,
    activeRateGbps: null,
    physState: null,
    gidTableLength: null,
    gids: [],
    fields: {},
  };
}

function applyDeviceField(device: IbvDevice, key: string, value: string): void {
  device.fields[key] = value;
  if (key === 'transport') device.transport = beforeParenthesis(value);
  else if (key === 'fw_ver') device.fwVer = value;
  else if (key === 'node_guid') device.nodeGuid = value;
  else if (key === 'sys_image_guid') device.sysImageGuid = value;
  else if (key === 'vendor_id') device.vendorId = value;
  else if (key === 'vendor_part_id') device.vendorPartId = intOrNull(value);
  else if (key === 'hw_ver') device.hwVer = value;
  else if (key === 'board_id') device.boardId = value;
  else if (key === 'phys_port_cnt') device.physPortCnt = intOrNull(value);
}

function applyPortField(port: IbvPort, key: string, value: string): void {
  port.fields[key] = value;
  if (key === 'state') port.state = beforeParenthesis(value);
  else if (key === 'max_mtu') port.maxMtuBytes = intOrNull(value);
  else if (key === 'active_mtu') port.activeMtuBytes = intOrNull(value);
  else if (key === 'sm_lid') port.smLid = intOrNull(value);
  else if (key === 'port_lid') port.portLid = intOrNull(value);
  else if (key === 'link_layer') port.linkLayer = value;
  else if (key === 'active_width') port.activeWidthLanes = intOrNull(/^(\d+)X/.exec(value)?.[1]);
  else if (key === 'active_speed') {
    const gbps = /([\d.]+)\s*Gbps/.exec(value)?.[1];
    port.activeSpeedGbpsPerLane = gbps === undefined ? null : Number(gbps);
  } else if (key === 'phys_state') port.physState = beforeParenthesis(value);
  else if (key === 'gid_tbl_len') port.gidTableLength = intOrNull(value);
  if (port.activeWidthLanes !== null && port.activeSpeedGbpsPerLane !== null) {
    port.activeRateGbps = port.activeWidthLanes * port.activeSpeedGbpsPerLane;
  }
}

function readGid(index: number, value: string): IbvGid {
  const [gid = '', type] = value.split(',').map((part) => part.trim());
  const version =
    type === undefined ? null : /v2\s*$/i.test(type) ? 'v2' : /v1\s*$/i.test(type) ? 'v1' : null;
  return { index, gid, type: type ?? null, roceVersion: version };
}

export function parseIbvDevinfo(text: string): ParseResult<IbvDevinfoFacts> {
  const warnings: ParseWarning[] = [];
  const devices: IbvDevice[] = [];
  let device: IbvDevice | undefined;
  let port: IbvPort | undefined;
  let verbose = false;
  let recognised = false;
  const lines = text.split(/\r?\n/);
  const currentDevice = (lineNumber: number): IbvDevice => {
    if (!device) {
      device = newDevice(null, lineNumber);
      devices.push(device);
      warnings.push({
        line: lineNumber,
        message: 'fields before any hca_id line (output cut at its start); device name unknown',
      });
    }
    return device;
  };
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    const hca = /^hca_id:\s*(\S+)\s*$/.exec(line);
    if (hca) {
      recognised = true;
      device = newDevice(hca[1] ?? null, lineNumber);
      devices.push(device);
      port = undefined;
      return;
    }
    const portHeader = /^\s+port:\s+(\d+)\s*$/.exec(line);
    if (portHeader) {
      recognised = true;
      port = newPort(Number(portHeader[1]), lineNumber);
      currentDevice(lineNumber).ports.push(port);
      return;
    }
    const gid = /^\s+GID\[\s*(\d+)\]:\s*(.*)$/.exec(line);
    if (gid) {
      verbose = true;
      let value = (gid[2] ?? '').trim();
      // Some mail archives and old versions wrap a long GID onto the next line.
      if (value === '') value = (lines[index + 1] ?? '').trim();
      if (port && value !== '') port.gids.push(readGid(Number(gid[1]), value));
      return;
    }
    const field = /^\s+([a-z_][a-z0-9_ ]*?):\s+(.*\S)\s*$/.exec(line);
    if (!field) return;
    const key = field[1] ?? '';
    const value = field[2] ?? '';
    if (VERBOSE_KEYS.has(key)) verbose = true;
    if (!port && !device && PORT_KEYS.has(key)) {
      // Port fields with no `port:` line above them: an excerpt that starts inside a port section.
      port = newPort(0, lineNumber);
      currentDevice(lineNumber).ports.push(port);
    }
    if (port) {
      if (key === 'state' && /^PORT_\w+/.test(value)) recognised = true;
      applyPortField(port, key, value);
    } else if (key === 'transport' || key === 'fw_ver' || key === 'node_guid' || device) {
      applyDeviceField(currentDevice(lineNumber), key, value);
    }
  });
  for (const each of devices) {
    const announced = each.physPortCnt;
    if (each.hcaId === null) continue;
    if (announced === null) {
      warnings.push({
        line: each.line,
        message: `${each.hcaId}: output ends before its port count and ports`,
      });
    } else if (each.ports.length < announced) {
      warnings.push({
        line: each.line,
        message: `${each.hcaId}: ${announced} port(s) announced, ${each.ports.length} printed (output cut?)`,
      });
    }
  }
  if (!recognised) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('ibv-devinfo', firstIndex + 1, lines[firstIndex] ?? '');
  }
  return { kind: 'ibv-devinfo', facts: { verbose, devices }, warnings };
}

export const ibvDevinfoParser: Parser<IbvDevinfoFacts> = {
  kind: 'ibv-devinfo',
  description: 'ibv_devinfo [-v]: HCAs, firmware, per-port state, MTU, link layer, width, speed, GID table',
  detect: detectIbvDevinfo,
  parse: parseIbvDevinfo,
};
