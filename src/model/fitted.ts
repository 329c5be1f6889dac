/**
 * The constants fitted to real nccl-tests logs, each with its bounds. `node bench/model-validation.mjs`
 * fits them on the corpus (test/fixtures/nccl-tests-corpus.json) and re-fits them without each cluster
 * for the leave-one-cluster-out figures; the values below are its fit of the corpus before the two ABCI
 * logs (docs/models.md section 6, step 17: with them the tree's shares would move, not shipped).
 * Everything else in the model is a published constant (NCCL's tuning.cc, datasheets).
 */
export interface ModelConstants {
  /** Fixed device-side cost of one nccl-tests iteration beyond NCCL's tuner latency: kernel launch, stream sync (us). */
  launchUs: number;
  /**
   * Host time to enqueue one NCCL call for one GPU (us): nccl-tests' thread issues one call per GPU it
   * drives (-g, src/common.cu startColl), so with several GPUs per thread an iteration cannot take less
   * than their sum, however short the kernels.
   */
  hostLaunchUs: number;
  /**
   * Host time of one ncclSend or ncclRecv posted inside a group (us): nccl-tests' alltoall posts one of
   * each to every rank, itself included (src/alltoall.cu AlltoAllRunColl), and sendrecv one of each
   * (src/sendrecv.cu), before the group's launch; the thread's floor counts them for every GPU it drives.
   */
  hostCallUs: number;
  /** Real latency / NCCL tuner latency, within a node (NVLink or PCIe hops). */
  intraLatencyScale: number;
  /** Real latency / NCCL tuner latency, for the network hops. */
  netLatencyScale: number;
  /**
   * Real latency / NCCL tuner latency of the Simple protocol's network hops, on top of netLatencyScale:
   * a Simple step across nodes waits for the proxy's send, receive and flush (tuning.cc counts the
   * graph's inter-node latency twice for it), which LL and LL128 do not. Intra-node Simple hops take
   * NCCL's own figures times intraLatencyScale, as the other protocols do.
   */
  simpleLatencyScale: number;
  /**
   * Share NVLS reaches of NCCL's own NVLS bandwidth times nvlsEfficiency (all_reduce busbw 2B(h-1)/h for h heads,
   * B NVLink per direction; src/tuning/nvls.cc): the same share on 8-GPU nodes and NVL72 domains.
   */
  nvlsShare: number;
  /**
   * Fixed cost of one NVLS loop step per head of the NVLink domain (us): each loop's scatter and gather
   * warps post to and wait on every head (src/device/all_reduce.h), so a loop takes at least this times
   * the domain's GPUs however small its chunks (16 to 128 KiB, enqueue.cc, by size).
   */
  nvlsStepPerHeadUs: number;
  /** Share of its network bound (B_net on two nodes, B_net / 2 beyond) the tree and NVLSTree reach. */
  treeShare: number;
  /** Share of the intra-node chain's bound (each GPU sends S up and S down: NVLink / 2) the tree reaches. */
  treeChainShare: number;
  /**
   * Without GPUDirect RDMA (NCCL's `GDR 0`) data bounces through host memory: the GPU writes and
   * reads pinned host buffers over its PCIe link. Share of that link's rate the bounce sustains.
   */
  bounceShare: number;
  /**
   * Cost of each round of a point-to-point group (alltoall: every other rank) on the device (us): a channel takes
   * the group's peers NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) at a time (src/include/device.h), side by side.
   */
  p2pRoundUs: number;
  /**
   * Share of a GPU's NVLink bandwidth per direction that a point-to-point send or receive reaches (sendrecv,
   * alltoall inside an NVLink domain): NCCL's p2p transport moves NCCL_P2P_NVL_CHUNKSIZE chunks on its p2p
   * channels, not the ring's pipeline, and reaches less than the ring's 370/450.
   */
  p2pNvlinkShare: number;
  /**
   * Further cost of each peer across the network (us): NCCL's proxy thread posts, progresses and completes a
   * network send and receive for every remote peer of the group (src/proxy.cc, src/transport/net.cc), where
   * an NVLink peer is served by the GPU's own loads and stores.
   */
  netPeerUs: number;
  /**
   * One message's latency over AWS EFA (SRD through libfabric and aws-ofi-nccl), us: no public
   * figure exists, so it is fitted to the corpus's EFA logs and used in place of the preset's value.
   */
  efaMessageUs: number;
}

export interface FittedParameter {
  key: keyof ModelConstants;
  min: number;
  max: number;
}

export const FITTED_PARAMETERS: readonly FittedParameter[] = [
  { key: 'launchUs', min: 0.5, max: 40 },
  { key: 'hostLaunchUs', min: 0.5, max: 20 },
  { key: 'hostCallUs', min: 0.01, max: 5 },
  { key: 'intraLatencyScale', min: 0.2, max: 5 },
  { key: 'netLatencyScale', min: 0.2, max: 5 },
  { key: 'simpleLatencyScale', min: 0.2, max: 10 },
  { key: 'nvlsShare', min: 0.2, max: 1.5 },
  { key: 'nvlsStepPerHeadUs', min: 0.01, max: 20 },
  { key: 'treeShare', min: 0.1, max: 1 },
  { key: 'treeChainShare', min: 0.1, max: 1.5 },
  { key: 'bounceShare', min: 0.05, max: 1 },
  { key: 'p2pRoundUs', min: 0.01, max: 40 },
  { key: 'p2pNvlinkShare', min: 0.3, max: 1 },
  { key: 'netPeerUs', min: 0.01, max: 50 },
  { key: 'efaMessageUs', min: 1, max: 100 },
];

/** Full-corpus fit (bench/model-validation.mjs --fit). */
export const FITTED_CONSTANTS: ModelConstants = {
  launchUs: 0.5,
  hostLaunchUs: 4.39,
  hostCallUs: 0.4105,
  intraLatencyScale: 1.142,
  netLatencyScale: 0.8759,
  simpleLatencyScale: 1.49,
  nvlsShare: 0.6638,
  nvlsStepPerHeadUs: 0.9757,
  treeShare: 0.9154,
  treeChainShare: 0.3522,
  bounceShare: 0.2184,
  p2pRoundUs: 8.599,
  p2pNvlinkShare: 0.6576,
  netPeerUs: 5.25,
  efaMessageUs: 1.287,
};
