/** `aifabric collective`: predicted nccl-tests table for one collective on one fabric and shape. */
import { Command, Option } from '@commander-js/extra-typings';
import { ALGORITHM_CHOICES, COLLECTIVE_OPS, PROTOCOL_CHOICES } from '../../core/collectives.js';
import { DEFAULT_NCCL_VERSION } from '../../core/nccl-version.js';
import { MAX_GPUS_PER_NODE, MAX_NICS_PER_NODE, MAX_NODES } from '../../core/limits.js';
import { UsageError } from '../../core/errors.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';
import {
  addHardwareOptions,
  choiceArg,
  durationArg,
  positiveIntArg,
  rateArg,
  sizeArg,
  stepFactorArg,
} from '../options.js';

export function registerCollective(program: Command): void {
  const command = program
    .command('collective')
    .description('predict time, algbw and busbw of one collective over a size sweep, in nccl-tests layout')
    .addOption(
      new Option('--op <op>', `collective: ${COLLECTIVE_OPS.join(', ')}`)
        .argParser(choiceArg('--op', COLLECTIVE_OPS))
        .default('all_reduce' as const),
    )
    .option(
      '--nodes <n>',
      `number of nodes, 1 to ${MAX_NODES} (written 1000 or 1e3)`,
      positiveIntArg('--nodes', { max: MAX_NODES, unit: 'nodes' }),
      2,
    )
    .option(
      '--gpus-per-node <g>',
      `GPUs (ranks) per node, 1 to ${MAX_GPUS_PER_NODE}`,
      positiveIntArg('--gpus-per-node', { max: MAX_GPUS_PER_NODE, unit: 'GPUs per node' }),
      8,
    )
    .option(
      '--nics-per-node <k>',
      `NICs per node, 1 to ${MAX_NICS_PER_NODE} (default: one per GPU)`,
      positiveIntArg('--nics-per-node', { max: MAX_NICS_PER_NODE, unit: 'NICs per node' }),
    )
    .option('--gpu <preset>', 'GPU preset (see `aifabric presets gpus`)', 'h100-sxm')
    .option('--fabric <preset>', 'fabric preset (see `aifabric presets fabrics`)', 'roce-400g')
    .addOption(
      new Option(
        '--algo <algo>',
        `algorithm, as NCCL_ALGO names them (Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT) in lower case, or auto (what NCCL would pick) or hierarchical (NVLink then network): ${ALGORITHM_CHOICES.join(', ')}; alltoall and sendrecv take auto`,
      )
        .argParser(choiceArg('--algo', ALGORITHM_CHOICES))
        .default('auto' as const),
    )
    .addOption(
      new Option('--proto <proto>', `protocol, forced as NCCL_PROTO does: ${PROTOCOL_CHOICES.join(', ')}`)
        .argParser(choiceArg('--proto', PROTOCOL_CHOICES))
        .default('auto' as const),
    )
    .option(
      '--alpha <duration>',
      'per-message latency per NIC, overriding the fabric (e.g. 5us)',
      durationArg('--alpha'),
    )
    .option(
      '--bandwidth <rate>',
      'bandwidth per NIC above 0, overriding the fabric (e.g. 100Gbps, 12.5GB/s); with --alpha: pure alpha-beta',
      rateArg('--bandwidth'),
    )
    .option(
      '-b, --minbytes <size>',
      'smallest message (nccl-tests -b); sizes round down to whole elements',
      sizeArg('-b'),
      8,
    )
    .option(
      '-e, --maxbytes <size>',
      'largest message (nccl-tests -e), at least -b',
      sizeArg('-e'),
      8 * 1024 ** 3,
    )
    .option(
      '-f, --stepfactor <factor>',
      'whole size multiplication factor of at least 2 (nccl-tests -f; default 2)',
      stepFactorArg('-f'),
    )
    .option('-i, --stepbytes <size>', 'fixed size increment instead of -f (nccl-tests -i)', sizeArg('-i'))
    .option(
      '-n, --iters <n>',
      'timed iterations per size (nccl-tests -n; default 20): a TCP loss stall shows in a row only when it is likely within them',
      positiveIntArg('-n', { max: 1_000_000, unit: 'iterations' }),
    );
  const withOutput = addOutputOptions(addHardwareOptions(command, `default: ${DEFAULT_NCCL_VERSION}`));
  addStoreOptions(withOutput).action(async (options) => {
    if (options.stepfactor !== undefined && options.stepbytes !== undefined) {
      throw new UsageError(
        '-f and -i both set the step between sizes: give one (nccl-tests uses -i only when -f is 1)',
      );
    }
    if (options.stepbytes !== undefined && options.stepbytes < 1) {
      throw new UsageError(
        `invalid size for -i: "${options.stepbytes}" (expected an increment of at least 1 byte)`,
      );
    }
    if (options.minbytes > options.maxbytes) {
      throw new UsageError(
        `invalid sizes: -b ${options.minbytes} is above -e ${options.maxbytes} (expected -b <= -e)`,
      );
    }
    const { runCollective } = await import('../../model/index.js');
    const { renderCollectiveText } = await import('../render/collective-text.js');
    const { emitResult } = await import('../emit.js');
    const { applyFabricOverrides, applyGpuOverrides, fieldOverridesFrom, resolveFabric, resolveGpu } =
      await import('../../spec/index.js');
    const fields = fieldOverridesFrom({
      ...(options.set !== undefined ? { set: options.set } : {}),
      ...(options.pcie !== undefined ? { pcie: options.pcie } : {}),
      ...(options.nvlinkBandwidth !== undefined ? { nvlinkBandwidthGBps: options.nvlinkBandwidth } : {}),
    });
    const cluster = clusterFields(
      fields.cluster,
      (name) => command.getOptionValueSource(name) !== 'default' && options[name] !== undefined,
    );
    const result = runCollective({
      op: options.op,
      nodes: cluster.nodes ?? options.nodes,
      gpusPerNode: cluster.gpusPerNode ?? options.gpusPerNode,
      ...(options.nicsPerNode !== undefined
        ? { nicsPerNode: options.nicsPerNode }
        : cluster.nicsPerNode !== undefined
          ? { nicsPerNode: cluster.nicsPerNode }
          : {}),
      gpu: applyGpuOverrides(resolveGpu(options.gpu), fields.gpu),
      fabric: applyFabricOverrides(resolveFabric(options.fabric), fields.fabric),
      algo: options.algo,
      proto: options.proto,
      overrides: fields,
      ...optional('gpuDirectRdma', options.gdr ?? cluster.gpuDirectRdma),
      ...optional('ncclVersion', options.ncclVersion ?? cluster.ncclVersion),
      ...optional('intraNodeKind', cluster.intraNodeKind),
      ...optional('intraNodeGBps', cluster.intraNodeGBps),
      ...optional('hostMemoryBandwidthGBps', cluster.hostMemoryBandwidthGBps),
      ...(options.alpha !== undefined ? { alphaSeconds: options.alpha } : {}),
      ...(options.bandwidth !== undefined ? { bandwidthBps: options.bandwidth } : {}),
      minBytes: options.minbytes,
      maxBytes: options.maxbytes,
      factor: options.stepfactor ?? 2,
      ...(options.stepbytes !== undefined ? { stepBytes: options.stepbytes } : {}),
      ...(options.iters !== undefined ? { iterations: options.iters } : {}),
    });
    await emitResult(result, options, renderCollectiveText);
  });
}

/** `{ key: value }`, or nothing when the value is undefined (exact optional properties). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

interface CollectiveClusterFields {
  nodes?: number;
  gpusPerNode?: number;
  nicsPerNode?: number;
  gpuDirectRdma?: boolean;
  ncclVersion?: string;
  intraNodeKind?: 'nvlink' | 'pcie';
  intraNodeGBps?: number;
  hostMemoryBandwidthGBps?: number;
}

/**
 * `--set cluster.*` as the collective's inputs; the dedicated flag, when given, wins over a `--set`
 * of the same field (`--nodes 4 --set cluster.nodes=2` runs on 4 nodes).
 */
function clusterFields(
  cluster: Record<string, unknown>,
  givenAsFlag: (name: 'nodes' | 'gpusPerNode' | 'nicsPerNode') => boolean,
): CollectiveClusterFields {
  const intraNode = (cluster.intraNode ?? {}) as { kind?: 'nvlink' | 'pcie'; bandwidthGBps?: number };
  const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
  const fields: CollectiveClusterFields = {};
  const set = <K extends keyof CollectiveClusterFields>(
    key: K,
    value: CollectiveClusterFields[K] | undefined,
  ): void => {
    if (value !== undefined) fields[key] = value;
  };
  if (!givenAsFlag('nodes')) set('nodes', number(cluster.nodes));
  if (!givenAsFlag('gpusPerNode')) set('gpusPerNode', number(cluster.gpusPerNode));
  if (!givenAsFlag('nicsPerNode')) set('nicsPerNode', number(cluster.nicsPerNode));
  set('gpuDirectRdma', typeof cluster.gpuDirectRdma === 'boolean' ? cluster.gpuDirectRdma : undefined);
  set('ncclVersion', typeof cluster.ncclVersion === 'string' ? cluster.ncclVersion : undefined);
  set('intraNodeKind', intraNode.kind);
  set('intraNodeGBps', intraNode.bandwidthGBps);
  set('hostMemoryBandwidthGBps', number(cluster.hostMemoryBandwidthGBps));
  return fields;
}
