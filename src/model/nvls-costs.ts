/**
 * Costs of the algorithms that reduce in the switch or by halving: NVLS and NVLSTree (NVLink SHARP),
 * CollNet (IB SHARP) and PAT. Ring, tree and the hierarchical scheme are in collectives.ts.
 */
import { busbwFactor, type CollectiveOp } from './busbw.js';
import { nvlsChannels, nvlsChunkBytes, nvlsEfficiency, PAT_BUSBW_SHARE } from './nccl-tuning.js';
import { rankCount, spineSlowdown, type CollectiveShape } from './collective-shape.js';
import { interHopLatencyUs, intraHwLatency, nodeNetworkWithPcieGBps, ringBottleneckGBps, ringChannels, scaled, streamsPerFlow, treeNetworkAlgbwGBps, usFor, type Cost, type Latency } from './cost-terms.js';

/** NVLS (NVLink SHARP) inside one node: the NVSwitch reduces and multicasts; all_reduce, reduce_scatter, all_gather. */
export function nvlsAlgbwGBps(op: CollectiveOp, shape: CollectiveShape): number {
  const g = shape.gpusPerNode;
  const perDirection = shape.nvlinkPerDirectionGBps;
  // all_reduce: every GPU sends its whole buffer into the switch (which reduces) and receives the
  // reduced buffer (S/g of it its own slice): S (1 + 1/g) each way, so algbw = B g/(g+1) and nccl-tests'
  // busbw 2B (g-1)/(g+1), the in-network-reduction bound nccl-tests' doc/PERFORMANCE.md gives ((n-1)/(n+1)).
  // all_gather / reduce_scatter: each GPU receives (or sends) S (g-1)/g: busbw = B.
  const busbw = op === 'all_reduce' ? (2 * perDirection * (g - 1)) / (g + 1) : perDirection;
  return (shape.constants.nvlsShare * nvlsEfficiency(shape.generation) * busbw) / Math.max(busbwFactor(op, g), 1e-9);
}

/** What NVLS's chunk pipeline allows (GB/s of algorithm bandwidth): each channel moves one chunk per `nvlsChunkUs` (plus a network hop across nodes). */
export function nvlsPipelineGBps(sizeBytes: number, shape: CollectiveShape, tree: boolean): number {
  const channels = nvlsChannels(shape.generation);
  const chunk = nvlsChunkBytes(sizeBytes, channels, tree, shape.nodes);
  const perChunkUs = shape.constants.nvlsChunkUs + (tree && shape.nodes > 1 ? interHopLatencyUs(shape, 'nvlstree', 'Simple') * shape.constants.netLatencyScale : 0);
  return (channels * chunk) / perChunkUs / 1e3;
}

export function nvlsCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape): Cost {
  const latency: Latency = { base: 0, intra: intraHwLatency(shape, 'nvls', 'Simple'), inter: 0 };
  const algbw = Math.min(nvlsAlgbwGBps(op, shape), nvlsPipelineGBps(sizeBytes, shape, false));
  return { latencyUs: scaled(shape, latency), bandwidthTimeUs: usFor(sizeBytes, algbw), networkSteps: 0, flowsPerStep: 0, bytesPerFlow: 0, channels: nvlsChannels(shape.generation) };
}

export function nvlsTreeCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const algbw = Math.min(nvlsAlgbwGBps('all_reduce', { ...shape, nodes: 1 }), treeNetworkAlgbwGBps(shape) * shape.constants.treeShare, nvlsPipelineGBps(sizeBytes, shape, true));
  const depth = Math.floor(Math.log2(Math.max(1, shape.nodes)));
  const latency: Latency = { base: 0, intra: intraHwLatency(shape, 'nvlstree', 'Simple'), inter: 2 * depth * interHopLatencyUs(shape, 'nvlstree', 'Simple') };
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: usFor(sizeBytes, algbw),
    networkSteps: 2 * depth,
    flowsPerStep: shape.nodes * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / 2 / shape.nicsPerNode / streams,
    channels: nvlsChannels(shape.generation),
  };
}

/** CollNet (IB SHARP): the switches reduce, each node sends and receives S once whatever the node count. */
export function collnetCost(sizeBytes: number, shape: CollectiveShape, chain: boolean): Cost {
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves);
  const intra = shape.nvls ? nvlsAlgbwGBps('all_reduce', { ...shape, nodes: 1 }) : shape.intraGBps / 2;
  const algbw = Math.min(network, intra);
  const ppn = shape.gpusPerNode;
  const hop = intraHwLatency(shape, chain ? 'collnetchain' : 'collnetdirect', 'Simple');
  const intra2 = chain ? 2 * (ppn - 1) * hop : 2 * (Math.min(1, ppn - 1) * hop + (ppn - 1) * 0.4);
  const latency: Latency = { base: 0, intra: intra2, inter: interHopLatencyUs(shape, chain ? 'collnetchain' : 'collnetdirect', 'Simple') };
  return { latencyUs: scaled(shape, latency), bandwidthTimeUs: usFor(sizeBytes, algbw), networkSteps: 2, flowsPerStep: shape.nodes * shape.nicsPerNode, bytesPerFlow: sizeBytes / shape.nicsPerNode, channels: 16 };
}

/** PAT (all_gather / reduce_scatter, one GPU per node, 2.23+): log2(N) network steps instead of N-1, at 0.75 of the ring's bandwidth. */
export function patCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const ranks = rankCount(shape);
  const busBw = ringBottleneckGBps(shape) * PAT_BUSBW_SHARE;
  const interLat = interHopLatencyUs(shape, 'pat', 'Simple');
  const latency: Latency = { base: 8, intra: ranks * 2.8, inter: Math.floor(Math.log2(Math.max(1, shape.nodes))) * (interLat / 3.5) };
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: usFor(((ranks - 1) / ranks) * sizeBytes, busBw),
    networkSteps: Math.ceil(Math.log2(Math.max(2, shape.nodes))),
    flowsPerStep: shape.nodes,
    bytesPerFlow: sizeBytes / ranks,
    channels: ringChannels(shape),
  };
}
