/** The parse room: every tool-output parser, the registry that detects kinds, and the shared types. */
export * from './types.js';
export * from './registry.js';
export * from './nccl-tests.js';
export * from './nccl-tests-types.js';
export * from './nccl-tests-stream.js';
export * from './parse-file.js';
export * from './perftest.js';
export * from './iperf3.js';
export * from './ibv-devinfo.js';
export * from './rdma-link.js';
export * from './show-gids.js';
export * from './nvidia-smi-topo.js';
export * from './sysctl.js';
export * from './nccl-env.js';
export * from './ethtool.js';
