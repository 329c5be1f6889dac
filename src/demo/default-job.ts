/** The demo's job, embedded so `aifabric demo` runs from anywhere; identical to examples/jobs/llama3-70b-8xh100.yaml (a test checks). */
export const DEFAULT_JOB_FILE_NAME = 'examples/jobs/llama3-70b-8xh100.yaml';

export const DEFAULT_JOB_YAML = `# A Llama-3-70B-class pre-training job on 8 nodes of 8 x H100 SXM, one 400G NIC per GPU.
# Tensor parallelism inside each node (NVLink), data parallelism across nodes with the optimizer
# state sharded (ZeRO-1, as Megatron-LM's distributed optimizer). \`aifabric demo\` embeds this file.
name: llama3-70b-pretrain
cluster:
  nodes: 8
  gpusPerNode: 8
  nicsPerNode: 8
  gpu: h100-sxm
  fabric: roce-400g
  topology:
    kind: leaf-spine
    oversubscription: 1
    nodesPerLeaf: 16
model: llama3-70b
parallelism:
  tp: 8
  pp: 1
sharding: zero1
sequenceLength: 8192
microBatchSize: 1
# 16 sequences per data-parallel replica per step (16 micro-batches of gradient accumulation).
globalBatchSize: 128
precision: bf16
overlap: 0.8
computeEfficiency: 0.55
stragglers:
  jitterCv: 0.03
  method: order-statistics
`;
