/**
 * Upper bounds on the shapes the model takes, in core and free of imports so that spec, the model and
 * the CLI (which declares flags with them) share them cheaply. They are far above any machine built (the
 * largest published training clusters are about 10^5 GPUs) and low enough that a typo such as `1e9`
 * nodes is refused instead of modelled.
 */
export const MAX_NODES = 1_000_000;
/** One NVLink domain counted as a node: NVL576 is the largest announced (NVIDIA GTC 2025). */
export const MAX_GPUS_PER_NODE = 1024;
export const MAX_NICS_PER_NODE = 1024;
