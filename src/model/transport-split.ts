/**
 * Separating the transport effect from the line-rate effect when two fabrics are compared: the step-time
 * ratio A/B factors exactly into A -> A' (A's transport at B's line rate) and A' -> B (the transport at
 * equal line rate), so "TCP 100G vs RoCE 400G" no longer credits RDMA with what is a 4x faster port.
 * Also the same-line-rate counterpart of a fabric on the other side of the TCP/RDMA divide, and the
 * NCCL network transport a preset stands for.
 */
import type { FabricSpec } from '../spec/index.js';

/**
 * NCCL's built-in network transports by the name they register under: `ncclNet_t ncclNetSocket = { "Socket", ... }`
 * in src/transport/net_socket.cc and `ncclNet_t ncclNetIb = { "IB", ... }` in src/transport/net_ib.cc (NVIDIA/nccl);
 * RoCE runs over the IB verbs transport too. The socket transport's ptrSupport is NCCL_PTR_HOST only, so every
 * buffer is staged through host memory.
 */
export const NCCL_NET_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Socket: 'NET/Socket (kernel TCP, host staging)',
  IB: 'NET/IB (RDMA verbs)',
};

export function isRdmaTransport(transport: string): boolean {
  return transport === 'roce' || transport === 'ib';
}

/** The NCCL network transport a fabric stands for: its `ncclNet` field when it has one, else from its transport. */
export function ncclNetOf(fabric: FabricSpec): string {
  // Read loosely: the field is new, and fabrics built in code before it may lack it.
  const declared = (fabric as { ncclNet?: unknown }).ncclNet;
  if (typeof declared === 'string' && declared.length > 0) return declared;
  return fabric.transport === 'tcp' ? 'Socket' : isRdmaTransport(fabric.transport) ? 'IB' : fabric.transport;
}

/** "NET/Socket (kernel TCP, host staging)" for kernel-TCP presets, "NET/IB (RDMA verbs)" for RoCE and InfiniBand, else the plugin's name. */
export function ncclNetDescription(fabric: FabricSpec): string {
  const net = ncclNetOf(fabric);
  return NCCL_NET_DESCRIPTIONS[net] ?? net;
}

const TRANSPORT_LABELS: Readonly<Record<string, string>> = {
  tcp: 'TCP',
  roce: 'RoCE',
  ib: 'InfiniBand',
  efa: 'EFA',
};

/** "TCP 100G", "RoCE 400G", "InfiniBand 400G": the transport and the line rate, nothing else. */
export function transportRateLabel(fabric: Pick<FabricSpec, 'transport' | 'lineRateGbps'>): string {
  return `${TRANSPORT_LABELS[fabric.transport] ?? fabric.transport} ${String(fabric.lineRateGbps)}G`;
}

/** What a TCP fabric carries besides its rate: a hypervisor on the path, devmem (GPUDirect-TCPX) payload. Plain kernel TCP for other transports. */
function tcpFlavour(fabric: FabricSpec): string {
  if (fabric.transport !== 'tcp') return 'virtualized=false devmem=false';
  // devmem is read loosely: the field is new in the schema.
  const tcp = fabric.tcp as Record<string, unknown> | undefined;
  return `virtualized=${String(tcp?.virtualized === true)} devmem=${String(tcp?.devmem === true)}`;
}

/**
 * The built-in preset with `transport` at `lineRateGbps`, or undefined. A TCP match must have the TCP flavour
 * of `like` (plain kernel TCP when `like` is RDMA), so the line-rate step never also takes a hypervisor off
 * the path or adds devmem.
 */
export function presetAtRate(
  presets: readonly FabricSpec[],
  like: FabricSpec,
  transport: FabricSpec['transport'],
  lineRateGbps: number,
): FabricSpec | undefined {
  return presets.find(
    (preset) =>
      preset.transport === transport &&
      preset.lineRateGbps === lineRateGbps &&
      (transport !== 'tcp' || tcpFlavour(preset) === tcpFlavour(like)),
  );
}

/**
 * The fabric to show beside `fabric`: the RoCE one of the same line rate (the same Ethernet) beside a TCP
 * fabric, the TCP one beside a RoCE or InfiniBand fabric. Built-in presets only; undefined when none
 * exists or the transport is neither (EFA).
 */
export function counterpartPreset(
  fabric: FabricSpec,
  presets: readonly FabricSpec[],
): FabricSpec | undefined {
  if (fabric.transport === 'tcp') return presetAtRate(presets, fabric, 'roce', fabric.lineRateGbps);
  if (isRdmaTransport(fabric.transport)) return presetAtRate(presets, fabric, 'tcp', fabric.lineRateGbps);
  return undefined;
}

export interface SplitFabric {
  fabric: string;
  /** Transport and line rate: "TCP 100G". */
  label: string;
  transport: string;
  lineRateGbps: number;
  ncclNet: string;
  stepTimeMs: number;
}

export interface SplitIntermediate extends SplitFabric {
  /** `preset`: a built-in fabric; `lineRateOverride`: the `from` fabric with only lineRateGbps changed; `from` or `to`: one of the pair itself. */
  derivation: 'preset' | 'lineRateOverride' | 'from' | 'to';
}

export interface TransportSplit {
  from: SplitFabric;
  to: SplitFabric;
  intermediate: SplitIntermediate;
  /** stepTime(from) / stepTime(to). */
  total: number;
  /** stepTime(from) / stepTime(intermediate): the same transport as `from`, moved to the line rate of `to`. */
  lineRate: number;
  /** stepTime(intermediate) / stepTime(to): the other transport at the same line rate. */
  transport: number;
}

function splitFabric(
  fabric: FabricSpec,
  stepTimeMs: number,
  label = transportRateLabel(fabric),
): SplitFabric {
  return {
    fabric: fabric.id,
    label,
    transport: fabric.transport,
    lineRateGbps: fabric.lineRateGbps,
    ncclNet: ncclNetOf(fabric),
    stepTimeMs,
  };
}

/** `from`'s transport at `to`'s line rate, and how it was obtained. */
export function intermediateFabric(
  from: FabricSpec,
  to: FabricSpec,
  presets: readonly FabricSpec[],
): { fabric: FabricSpec; derivation: SplitIntermediate['derivation'] } {
  // Equal line rates first: then the line-rate factor is 1 even for two fabrics of one transport that differ otherwise.
  if (from.lineRateGbps === to.lineRateGbps) return { fabric: from, derivation: 'from' };
  if (from.transport === to.transport) return { fabric: to, derivation: 'to' };
  const preset = presetAtRate(presets, from, from.transport, to.lineRateGbps);
  if (preset) return { fabric: preset, derivation: 'preset' };
  return {
    fabric: {
      ...from,
      id: `${from.id}@${String(to.lineRateGbps)}g`,
      name: `${from.name} at ${String(to.lineRateGbps)}G`,
      lineRateGbps: to.lineRateGbps,
    },
    derivation: 'lineRateOverride',
  };
}

/**
 * Splits stepTime(from)/stepTime(to) into line rate x transport. `stepTimeMs` evaluates the same job on a
 * fabric (the caller's model); it is called once per distinct fabric. Same line rate: the line-rate factor is
 * exactly 1; same transport at different line rates: the transport factor is exactly 1.
 */
export function transportSplit(
  from: FabricSpec,
  to: FabricSpec,
  stepTimeMs: (fabric: FabricSpec) => number,
  presets: readonly FabricSpec[],
): TransportSplit {
  const cache = new Map<FabricSpec, number>();
  const time = (fabric: FabricSpec): number => {
    let value = cache.get(fabric);
    if (value === undefined) {
      value = stepTimeMs(fabric);
      cache.set(fabric, value);
    }
    return value;
  };
  const fromMs = time(from);
  const toMs = time(to);
  const middle = intermediateFabric(from, to, presets);
  const middleMs =
    middle.derivation === 'to' ? toMs : middle.derivation === 'from' ? fromMs : time(middle.fabric);
  let fromLabel = transportRateLabel(from);
  let toLabel = transportRateLabel(to);
  if (fromLabel === toLabel) {
    fromLabel = `${fromLabel} (${from.id})`;
    toLabel = `${toLabel} (${to.id})`;
  }
  const middleLabel =
    middle.derivation === 'lineRateOverride'
      ? `${transportRateLabel(middle.fabric)} (${from.id} with lineRateGbps ${String(to.lineRateGbps)})`
      : transportRateLabel(middle.fabric);
  return {
    from: splitFabric(from, fromMs, fromLabel),
    to: splitFabric(to, toMs, toLabel),
    intermediate: { ...splitFabric(middle.fabric, middleMs, middleLabel), derivation: middle.derivation },
    total: fromMs / toMs,
    lineRate: middle.derivation === 'from' ? 1 : fromMs / middleMs,
    transport: middle.derivation === 'to' ? 1 : middleMs / toMs,
  };
}

/** `TCP 100G vs RoCE 400G: 1.32x = 1.15 line rate x 1.14 transport`: the model's figures, 2 decimals. */
export function transportSplitLine(split: TransportSplit): string {
  return `${split.from.label} vs ${split.to.label}: ${split.total.toFixed(2)}x = ${split.lineRate.toFixed(2)} line rate x ${split.transport.toFixed(2)} transport`;
}

/** The two steps of the split in one line, and where the intermediate fabric came from. */
export function transportSplitDetail(split: TransportSplit): string {
  const { from, to, intermediate } = split;
  const kind = TRANSPORT_LABELS[from.transport] ?? from.transport;
  switch (intermediate.derivation) {
    case 'preset':
      return `line rate ${from.fabric} -> ${intermediate.fabric} (the ${kind} preset at ${String(to.lineRateGbps)}G), transport ${intermediate.fabric} -> ${to.fabric}`;
    case 'lineRateOverride':
      return `line rate ${from.fabric} -> ${intermediate.fabric} (${from.fabric} with lineRateGbps ${String(to.lineRateGbps)}: no ${kind} preset at that rate), transport ${intermediate.fabric} -> ${to.fabric}`;
    case 'to':
      return `same transport: the whole ratio is line rate (with whatever else differs), ${from.fabric} -> ${to.fabric}`;
    case 'from':
      return `same line rate: the whole ratio is transport (with whatever else differs), ${from.fabric} -> ${to.fabric}`;
  }
}
