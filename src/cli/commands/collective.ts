/** `aifabric collective`: predicted nccl-tests table for one collective on one fabric and shape. */
import { Command, Option } from '@commander-js/extra-typings';
import { COLLECTIVE_OPS } from '../../model/busbw.js';
import { ALGORITHM_CHOICES } from '../../model/algorithms.js';
import { MAX_GPUS_PER_NODE, MAX_NICS_PER_NODE, MAX_NODES } from '../../spec/limits.js';
import { UsageError } from '../../core/errors.js';
import { addStoreOptions } from '../store-options.js';
import { choiceArg, durationArg, positiveIntArg, rateArg, sizeArg, stepFactorArg } from '../options.js';

export function registerCollective(program: Command): void {
  const command = program
    .command('collective')
    .description('predict time, algbw and busbw of one collective over a size sweep, in nccl-tests layout')
    .addOption(
      new Option('--op <op>', `collective: ${COLLECTIVE_OPS.join(', ')}`)
        .argParser(choiceArg('--op', COLLECTIVE_OPS))
        .default('all_reduce' as const),
    )
    .option('--nodes <n>', `number of nodes, 1 to ${MAX_NODES} (written 1000 or 1e3)`, positiveIntArg('--nodes', { max: MAX_NODES, unit: 'nodes' }), 2)
    .option('--gpus-per-node <g>', `GPUs (ranks) per node, 1 to ${MAX_GPUS_PER_NODE}`, positiveIntArg('--gpus-per-node', { max: MAX_GPUS_PER_NODE, unit: 'GPUs per node' }), 8)
    .option('--nics-per-node <k>', `NICs per node, 1 to ${MAX_NICS_PER_NODE} (default: one per GPU)`, positiveIntArg('--nics-per-node', { max: MAX_NICS_PER_NODE, unit: 'NICs per node' }))
    .option('--gpu <preset>', 'GPU preset (see `aifabric presets gpus`)', 'h100-sxm')
    .option('--fabric <preset>', 'fabric preset (see `aifabric presets fabrics`)', 'roce-400g')
    .addOption(
      new Option('--algo <algo>', `algorithm: ${ALGORITHM_CHOICES.join(', ')}; tree is all_reduce only, hierarchical all_reduce/all_gather/reduce_scatter, alltoall and sendrecv take auto`)
        .argParser(choiceArg('--algo', ALGORITHM_CHOICES))
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
    .option('-b, --minbytes <size>', 'smallest message (nccl-tests -b); sizes round down to whole elements', sizeArg('-b'), 8)
    .option('-e, --maxbytes <size>', 'largest message (nccl-tests -e), at least -b', sizeArg('-e'), 8 * 1024 ** 3)
    .option('-f, --stepfactor <factor>', 'whole size multiplication factor of at least 2 (nccl-tests -f; default 2)', stepFactorArg('-f'))
    .option('-i, --stepbytes <size>', 'fixed size increment instead of -f (nccl-tests -i)', sizeArg('-i'))
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON result to FILE');
  addStoreOptions(command).action(async (options) => {
    if (options.stepfactor !== undefined && options.stepbytes !== undefined) {
      throw new UsageError('-f and -i both set the step between sizes: give one (nccl-tests uses -i only when -f is 1)');
    }
    if (options.stepbytes !== undefined && options.stepbytes < 1) {
      throw new UsageError(`invalid size for -i: "${options.stepbytes}" (expected an increment of at least 1 byte)`);
    }
    if (options.minbytes > options.maxbytes) {
      throw new UsageError(`invalid sizes: -b ${options.minbytes} is above -e ${options.maxbytes} (expected -b <= -e)`);
    }
    const { runCollective } = await import('../../model/collective-run.js');
    const { renderCollectiveText } = await import('../render/collective-text.js');
    const { emitResult } = await import('../emit.js');
    const result = runCollective({
      op: options.op,
      nodes: options.nodes,
      gpusPerNode: options.gpusPerNode,
      ...(options.nicsPerNode !== undefined ? { nicsPerNode: options.nicsPerNode } : {}),
      gpu: options.gpu,
      fabric: options.fabric,
      algo: options.algo,
      ...(options.alpha !== undefined ? { alphaSeconds: options.alpha } : {}),
      ...(options.bandwidth !== undefined ? { bandwidthBps: options.bandwidth } : {}),
      minBytes: options.minbytes,
      maxBytes: options.maxbytes,
      factor: options.stepfactor ?? 2,
      ...(options.stepbytes !== undefined ? { stepBytes: options.stepbytes } : {}),
    });
    await emitResult(result, options, renderCollectiveText);
  });
}
