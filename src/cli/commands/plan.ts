/** `aifabric plan JOB`: the step-time breakdown of one training job on one fabric. */
import type { Command } from '@commander-js/extra-typings';
import type { JobOverrides } from '../../spec/index.js';
import { MAX_NODES } from '../../core/limits.js';
import {
  BANDWIDTH_HELP,
  NCCL_DEFAULT_HELP,
  NODE_BOUNDS,
  hardwareOverrides,
  loadJob,
} from '../job-options.js';
import { addHardwareOptions, positiveIntArg, rateArg } from '../options.js';
import { addOutputOptions, addStoreOptions } from '../store-options.js';
import { withHeader } from '../render/overrides-text.js';

export function registerPlan(program: Command): void {
  const command = program
    .command('plan')
    .description('step-time breakdown of one training job on one fabric')
    .argument('<job>', 'job YAML file')
    .option('--fabric <preset>', 'fabric preset overriding the job file')
    .option(
      '--nodes <n>',
      `node count overriding the job file, 1 to ${MAX_NODES} (batch per replica kept)`,
      positiveIntArg('--nodes', NODE_BOUNDS),
    )
    .option('--bandwidth <rate>', BANDWIDTH_HELP, rateArg('--bandwidth'));
  const withOutput = addOutputOptions(addHardwareOptions(command, NCCL_DEFAULT_HELP));
  addStoreOptions(withOutput).action(async (file, options) => {
    const loaded = await loadJob(file);
    const hardware = await hardwareOverrides(options, 'plan');
    const { planJob } = await import('../../model/index.js');
    const { renderPlanText } = await import('../render/plan-text.js');
    const { emitResult } = await import('../emit.js');
    const overrides: JobOverrides = {
      ...hardware,
      ...(options.fabric ? { fabric: options.fabric } : {}),
      ...(options.nodes ? { nodes: options.nodes } : {}),
    };
    await emitResult(planJob(loaded, overrides, file), options, withHeader(renderPlanText, false));
  });
}
