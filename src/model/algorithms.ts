/**
 * The algorithm ids the model and `--algo` use: NCCL_ALGO's names in lower case (NVIDIA/nccl
 * src/graph/tuning.cc ncclAlgoStr: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT),
 * plus `auto` (what NCCL would pick) and `hierarchical` (NVLink then network, the textbook scheme).
 * Kept free of imports so the CLI can declare flags cheaply.
 */
export const ALGORITHM_IDS = ['ring', 'tree', 'collnetdirect', 'collnetchain', 'nvls', 'nvlstree', 'pat'] as const;
export type NcclAlgorithm = (typeof ALGORITHM_IDS)[number];
export const ALGORITHM_CHOICES = ['auto', ...ALGORITHM_IDS, 'hierarchical'] as const;
export type AlgorithmChoice = (typeof ALGORITHM_CHOICES)[number];
