/**
 * `aifabric compare JOB`: one job on several fabrics side by side (step time, tokens/s, MFU,
 * data-path cost), each ratio split into line rate x transport.
 */
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
import { addHardwareOptions, listArg, positiveIntArg, rateArg } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';
import { withHeader } from '../render/overrides-text.js';

export function registerCompare(program: Command): void {
  const command = program
    .command('compare')
    .description(
      'side-by-side step time, tokens/s, MFU and data-path cost of one job on several fabrics, each ratio split into line rate x transport',
    )
    .argument('<job>', 'job YAML file')
    .option('--fabrics <list>', 'comma-separated fabric presets', listArg, [
      'tcp-100g',
      'roce-400g',
      'ib-ndr-400g',
    ])
    .option(
      '--nodes <n>',
      `node count overriding the job file, 1 to ${MAX_NODES}`,
      positiveIntArg('--nodes', NODE_BOUNDS),
    )
    .option('--no-counterparts', COUNTERPARTS_HELP)
    .option('--bandwidth <rate>', `${BANDWIDTH_HELP}, on every fabric`, rateArg('--bandwidth'));
  const withOutput = addOutputOptions(addHardwareOptions(command, NCCL_DEFAULT_HELP));
  addStoreOptions(withOutput).action(async (file, options) => {
    const loaded = await loadJob(file);
    if (options.fabrics.length === 0) throw new UsageError('--fabrics needs at least one fabric preset');
    const hardware = await hardwareOverrides(options, 'compare');
    const { compareFabrics } = await import('../../model/index.js');
    const { renderCompareText } = await import('../render/plan-text.js');
    const { emitResult } = await import('../emit.js');
    await emitResult(
      compareFabrics(
        loaded,
        options.fabrics,
        { ...hardware, ...(options.nodes ? { nodes: options.nodes } : {}) },
        file,
        { counterparts: options.counterparts },
      ),
      options,
      withHeader(renderCompareText, true),
    );
  });
}
