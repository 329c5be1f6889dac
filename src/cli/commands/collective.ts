/** `aifabric collective`: predicted nccl-tests table for one collective on one fabric and shape. */
import { Command, Option } from '@commander-js/extra-typings';
import { COLLECTIVE_OPS } from '../../model/busbw.js';
import { ALGORITHM_CHOICES } from '../../model/algorithms.js';
import { addStoreOptions } from '../store-options.js';
import { choiceArg, durationArg, positiveIntArg, positiveNumberArg, rateArg, sizeArg } from '../options.js';

export function registerCollective(program: Command): void {
  const command = program
    .command('collective')
    .description('predict time, algbw and busbw of one collective over a size sweep, in nccl-tests layout')
    .addOption(
      new Option('--op <op>', `collective: ${COLLECTIVE_OPS.join(', ')}`)
        .argParser(choiceArg('--op', COLLECTIVE_OPS))
        .default('all_reduce' as const),
    )
    .option('--nodes <n>', 'number of nodes', positiveIntArg('--nodes'), 2)
    .option('--gpus-per-node <g>', 'GPUs (ranks) per node', positiveIntArg('--gpus-per-node'), 8)
    .option('--nics-per-node <k>', 'NICs per node (default: one per GPU)', positiveIntArg('--nics-per-node'))
    .option('--gpu <preset>', 'GPU preset (see `aifabric presets gpus`)', 'h100-sxm')
    .option('--fabric <preset>', 'fabric preset (see `aifabric presets fabrics`)', 'roce-400g')
    .addOption(
      new Option('--algo <algo>', `algorithm: ${ALGORITHM_CHOICES.join(', ')}`)
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
      'bandwidth per NIC, overriding the fabric (e.g. 100Gbps, 12.5GB/s); with --alpha: pure alpha-beta',
      rateArg('--bandwidth'),
    )
    .option('-b, --minbytes <size>', 'smallest message (nccl-tests -b)', sizeArg('-b'), 8)
    .option('-e, --maxbytes <size>', 'largest message (nccl-tests -e)', sizeArg('-e'), 8 * 1024 ** 3)
    .option(
      '-f, --stepfactor <factor>',
      'size multiplication factor (nccl-tests -f)',
      positiveNumberArg('-f'),
      2,
    )
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON result to FILE');
  addStoreOptions(command).action(async (options) => {
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
      factor: options.stepfactor,
    });
    await emitResult(result, options, renderCollectiveText);
  });
}
