/** `aifabric scale JOB`: scaling efficiency per fabric over node counts, and from how many nodes RDMA pays off. */
import type { Command } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.js';
import { MAX_NODES } from '../../core/limits.js';
import {
  BANDWIDTH_HELP,
  COUNTERPARTS_HELP,
  NCCL_DEFAULT_HELP,
  NODE_BOUNDS,
  hardwareOverrides,
  loadJob,
} from '../job-options.js';
import { addHardwareOptions, intListArg, listArg, rateArg } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';
import { withHeader } from '../render/overrides-text.js';

export function registerScale(program: Command): void {
  const command = program
    .command('scale')
    .description('scaling efficiency per fabric over node counts, and from how many nodes RDMA pays off')
    .argument('<job>', 'job YAML file')
    .option(
      '--nodes <list>',
      `node counts: 1,2,4,8 or 1..1024 (powers of two), each 1 to ${MAX_NODES}`,
      intListArg('--nodes', NODE_BOUNDS),
      [1, 2, 4, 8, 16, 32, 64, 128],
    )
    .option('--fabrics <list>', 'comma-separated fabric presets', listArg, [
      'tcp-100g',
      'roce-400g',
      'ib-ndr-400g',
    ])
    .option('--no-counterparts', COUNTERPARTS_HELP)
    .option('--bandwidth <rate>', `${BANDWIDTH_HELP}, on every fabric`, rateArg('--bandwidth'));
  const withOutput = addOutputOptions(addHardwareOptions(command, NCCL_DEFAULT_HELP));
  addStoreOptions(withOutput).action(async (file, options) => {
    const loaded = await loadJob(file);
    if (options.fabrics.length === 0) throw new UsageError('--fabrics needs at least one fabric preset');
    const hardware = await hardwareOverrides(options, 'scale');
    const { scaleJob } = await import('../../model/index.js');
    const { renderScaleText } = await import('../render/plan-text.js');
    const { emitResult } = await import('../emit.js');
    await emitResult(
      scaleJob(loaded, options.nodes, options.fabrics, file, {
        counterparts: options.counterparts,
        overrides: hardware,
      }),
      options,
      withHeader(renderScaleText, true),
    );
  });
}
