/**
 * Costs of the algorithms that reduce in the switch or by halving: NVLS and NVLSTree (NVLink SHARP),
 * CollNet (IB SHARP) and PAT. Ring, tree and the hierarchical scheme are in collectives.ts.
 */
import { busbwFactor, type CollectiveOp } from './busbw.js';
import {
  NVLS_MAX_ARITY,
  nvlsChannels,
  nvlsChunkBytes,
  nvlsChunkThresholds,
  nvlsEfficiency,
  PAT_BUSBW_SHARE,
} from './nccl-tuning.js';
import { rankCount, spineSlowdown, type CollectiveShape } from './collective-shape.js';
import {
  interHopLatencyUs,
  intraHwLatency,
  nodeNetworkWithPcieGBps,
  ringBottleneckGBps,
  ringChannels,
  scaled,
  treeNetworkAlgbwGBps,
  usFor,
  type Cost,
  type Latency,
} from './cost-terms.js';

/**
 * NVLS heads: one per GPU of the NVLink domain, at most NCCL_MAX_NVLS_ARITY 32 (search.cc: the NVLS graph has
 * min(32, GPUs) channels, each GPU heading one; connect.cc connectNvls gives every channel that many heads).
 * Each head reduces and multicasts its own share of every loop (src/device/all_reduce.h, NVLS
 * `loopCount = nvls->nHeads * chunkSize` per channel). NVLSTree's NVLS part runs inside each node.
 */
const nvlsHeads = (shape: CollectiveShape, tree: boolean): number =>
  Math.min(NVLS_MAX_ARITY, tree ? shape.gpusPerNode : rankCount(shape));

/**
 * NVLS (NVLink SHARP) inside one NVLink domain: the NVSwitch reduces and multicasts; all_reduce, reduce_scatter,
 * all_gather. all_reduce: nccl-tests busbw 2B (h-1)/h for h heads, B NVLink per direction, as NCCL's own NVLS
 * model (NVIDIA/nccl src/tuning/nvls.cc, 1fc949c5: bwIntra x nvlsEfficiency x (nChannels - 1) / nChannels, x 2
 * for all_reduce, one channel per head), times nvlsEfficiency and the fitted `nvlsShare`. The
 * in-network-reduction bound, S (1 + 1/g) each way per GPU (busbw 2B (g-1)/(g+1), nccl-tests'
 * doc/PERFORMANCE.md), grows with the domain, where the NVL72 logs fall (docs/models.md section 6).
 * all_gather / reduce_scatter: each GPU receives (or sends) S (g-1)/g: busbw = B.
 */
export function nvlsAlgbwGBps(op: CollectiveOp, shape: CollectiveShape): number {
  const g = shape.gpusPerNode;
  const heads = nvlsHeads(shape, false);
  const perDirection = shape.nvlinkPerDirectionGBps;
  const busbw = op === 'all_reduce' ? (2 * perDirection * (heads - 1)) / heads : perDirection;
  return (
    (shape.constants.nvlsShare * nvlsEfficiency(shape.generation) * busbw) /
    Math.max(busbwFactor(op, g), 1e-9)
  );
}

/**
 * Warp groups of NVLS's pipeline (src/device/all_reduce.h, all_gather.h: a loop's chunks pass from one group to
 * the next): one-node all_reduce scatters into the NVLS buffer, reduces and multicasts through the switch, and
 * gathers (3); NVLSTree adds the network (reduce and send up the tree, receive and multicast down: 4);
 * all_gather and reduce_scatter have 2. Filling and draining the pipeline costs `stages - 1` loops of data time.
 */
const nvlsStages = (op: CollectiveOp): number => (op === 'all_reduce' ? 3 : 2);
const NVLS_TREE_STAGES = 4;

/**
 * Time NVLS's chunk pipeline takes to move `sizeBytes` at `algbwGBps`. Each loop moves channels x heads chunks
 * (enqueue.cc `concurrentOps = nChannels * nvls.nHeads`, the chunk size by message size, and all_reduce.h's
 * `loopCount = nvls->nHeads * chunkSize` per channel); a loop takes its data time or, if longer, its fixed
 * step cost, `nvlsStepPerHeadUs` for each head (the scatter and gather warps post to and wait on every head:
 * all_reduce.h `FanAsymmetric<0, NCCL_MAX_NVLS_ARITY>`); the pipeline's fill and drain add `stages - 1` loops
 * of data time. NVLSTree's first loop pays its data only: its fixed part is NCCL's NVLSTree latency. A larger
 * message never takes less time than a smaller one (NCCL's chunk grows at its thresholds; the model keeps the
 * time just below each threshold as a floor above it).
 */
export function nvlsPipelineTimeUs(
  op: CollectiveOp,
  sizeBytes: number,
  shape: CollectiveShape,
  tree: boolean,
  algbwGBps: number,
): number {
  if (!(sizeBytes > 0)) return 0;
  const heads = nvlsHeads(shape, tree);
  const concurrentOps = nvlsChannels(shape.generation) * heads;
  const stepUs = shape.constants.nvlsStepPerHeadUs * heads;
  const fill = (tree ? NVLS_TREE_STAGES : nvlsStages(op)) - 1;
  const timeAt = (bytes: number): number => {
    const loopBytes = concurrentOps * nvlsChunkBytes(bytes, concurrentOps, tree, shape.nodes);
    const dataUs = usFor(Math.min(bytes, loopBytes), algbwGBps);
    const loops = Math.max(1, bytes / loopBytes);
    // NVLSTree: the first loop's fixed cost is NCCL's NVLSTree latency (its intra hop and tree hops), only its data adds.
    return tree
      ? (loops - 1) * Math.max(dataUs, stepUs) + (1 + fill) * dataUs
      : loops * Math.max(dataUs, stepUs) + fill * dataUs;
  };
  let time = timeAt(sizeBytes);
  for (const threshold of nvlsChunkThresholds(concurrentOps, tree, shape.nodes)) {
    if (threshold <= sizeBytes) time = Math.max(time, timeAt(threshold * (1 - 1e-12)));
  }
  return time;
}

export function nvlsCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape): Cost {
  const latency: Latency = { base: 0, intra: intraHwLatency(shape, 'nvls', 'Simple'), inter: 0 };
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: nvlsPipelineTimeUs(op, sizeBytes, shape, false, nvlsAlgbwGBps(op, shape)),
    networkSteps: 0,
    connections: 0,
    bytesPerConnection: 0,
    channels: nvlsChannels(shape.generation),
  };
}

export function nvlsTreeCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const algbw = Math.min(
    nvlsAlgbwGBps('all_reduce', { ...shape, nodes: 1 }),
    treeNetworkAlgbwGBps(shape) * shape.constants.treeShare,
  );
  const depth = Math.floor(Math.log2(Math.max(1, shape.nodes)));
  const latency: Latency = {
    base: 0,
    intra: intraHwLatency(shape, 'nvlstree', 'Simple'),
    inter: 2 * depth * interHopLatencyUs(shape, 'nvlstree', 'Simple'),
  };
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: nvlsPipelineTimeUs('all_reduce', sizeBytes, shape, true, algbw),
    networkSteps: 2 * depth,
    connections: shape.nodes * shape.nicsPerNode,
    bytesPerConnection: sizeBytes / 2 / shape.nicsPerNode,
    channels: nvlsChannels(shape.generation),
  };
}

/** CollNet (IB SHARP): the switches reduce, each node sends and receives S once whatever the node count. */
export function collnetCost(sizeBytes: number, shape: CollectiveShape, chain: boolean): Cost {
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves);
  const ppn = shape.gpusPerNode;
  // With one GPU per node nothing is reduced inside the node: the switches do it all (an NVLS domain of one
  // GPU has no bandwidth, which made the time infinite).
  const intra =
    ppn <= 1
      ? Infinity
      : shape.nvls
        ? nvlsAlgbwGBps('all_reduce', { ...shape, nodes: 1 })
        : shape.intraGBps / 2;
  const algbw = Math.min(network, intra);
  const hop = intraHwLatency(shape, chain ? 'collnetchain' : 'collnetdirect', 'Simple');
  const intra2 = chain ? 2 * (ppn - 1) * hop : 2 * (Math.min(1, ppn - 1) * hop + (ppn - 1) * 0.4);
  const latency: Latency = {
    base: 0,
    intra: intra2,
    inter: interHopLatencyUs(shape, chain ? 'collnetchain' : 'collnetdirect', 'Simple'),
  };
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: usFor(sizeBytes, algbw),
    networkSteps: 2,
    connections: shape.nodes * shape.nicsPerNode,
    bytesPerConnection: sizeBytes / shape.nicsPerNode,
    channels: 16,
  };
}

/** PAT (all_gather / reduce_scatter, one GPU per node, 2.23+): log2(N) network steps instead of N-1, at 0.75 of the ring's bandwidth. */
export function patCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const ranks = rankCount(shape);
  const busBw = ringBottleneckGBps(shape) * PAT_BUSBW_SHARE;
  const interLat = interHopLatencyUs(shape, 'pat', 'Simple');
  const latency: Latency = {
    base: 8,
    intra: ranks * 2.8,
    inter: Math.floor(Math.log2(Math.max(1, shape.nodes))) * (interLat / 3.5),
  };
  return {
    latencyUs: scaled(shape, latency),
    // all_gather and reduce_scatter share the factor (n-1)/n.
    bandwidthTimeUs: usFor(busbwFactor('all_gather', ranks) * sizeBytes, busBw),
    networkSteps: Math.ceil(Math.log2(Math.max(2, shape.nodes))),
    connections: shape.nodes,
    bytesPerConnection: sizeBytes / ranks,
    channels: ringChannels(shape),
  };
}
