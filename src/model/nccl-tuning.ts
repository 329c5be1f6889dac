/**
 * NCCL's own cost-model constants, which decide what it picks and give its latency floor.
 * Source: NVIDIA/nccl src/graph/tuning.cc (v2.30), as summarised in shared/data/reference-points.md.
 */
export type NcclAlgorithm = 'ring' | 'tree';
export type NcclProtocol = 'LL' | 'LL128' | 'Simple';

export const PROTOCOLS: readonly NcclProtocol[] = ['LL', 'LL128', 'Simple'];

/** Base latency per algorithm and protocol (us): tuning.cc baseLat. */
export const BASE_LATENCY_US: Record<NcclAlgorithm, Record<NcclProtocol, number>> = {
  tree: { LL: 6.8, LL128: 14, Simple: 8.4 },
  ring: { LL: 6.6, LL128: 14, Simple: 8.4 },
};

/** Per-hop latency over the network (us): tuning.cc hwLat[NET]. */
export const NET_HOP_LATENCY_US: Record<NcclAlgorithm, Record<NcclProtocol, number>> = {
  tree: { LL: 5.0, LL128: 8.5, Simple: 14 },
  ring: { LL: 2.7, LL128: 4.0, Simple: 14 },
};

/** Per-hop latency over NVLink (us): tuning.cc hwLat[NVLINK]. */
export const NVLINK_HOP_LATENCY_US: Record<NcclAlgorithm, Record<NcclProtocol, number>> = {
  tree: { LL: 0.6, LL128: 1.25, Simple: 4.0 },
  ring: { LL: 0.6, LL128: 1.9, Simple: 3.4 },
};

/**
 * Share of link bandwidth each protocol delivers: LL sends 4 bytes of flag with every 4 bytes of
 * data (50%); LL128 keeps 8 of every 128 bytes for flags (120/128); Simple uses the whole link.
 */
export const PROTOCOL_BANDWIDTH_SHARE: Record<NcclProtocol, number> = {
  LL: 0.5,
  LL128: 120 / 128,
  Simple: 1,
};

/**
 * tuning.cc converts bus bandwidth to algorithm bandwidth with ratio 0.5 for tree and caps tree
 * all_reduce at 92% of the bus bandwidth: the tuner's view, which decides when NCCL picks tree.
 */
export const TREE_ALGBW_RATIO = 0.5;
export const TREE_BUSBW_DERATE = 0.92;

/** tuning.cc: Simple over the network pays the network overhead three times (send, receive, ack). */
export const SIMPLE_NET_OVERHEAD_FACTOR = 3;
