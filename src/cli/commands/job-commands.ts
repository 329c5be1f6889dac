/** `plan`, `compare`, `scale`: the training-step model over a job file. */
import { Command } from '@commander-js/extra-typings';
import { UsageError } from '../../core/errors.js';
import { MAX_NODES } from '../../core/limits.js';
import { DEFAULT_NCCL_VERSION } from '../../core/nccl-version.js';
import type { JobOverrides } from '../../spec/index.js';
import { addHardwareOptions, intListArg, listArg, positiveIntArg, rateArg } from '../options.js';
import { addStoreOptions } from '../store-options.js';
import { withHeader } from '../render/overrides-text.js';

const NODE_BOUNDS = { max: MAX_NODES, unit: 'nodes' };
const COUNTERPARTS_HELP =
  'leave out the fabrics added beside each one asked for (the RoCE fabric of the same line rate beside a TCP one, the TCP one beside an RDMA one)';

const NCCL_DEFAULT_HELP = `default: the cluster's ncclVersion, else ${DEFAULT_NCCL_VERSION}`;
const BANDWIDTH_HELP = "payload bandwidth per NIC above 0, replacing the fabric's (e.g. 100Gbps, 12.5GB/s)";

async function loadJob(file: string) {
  const { loadJobFile } = await import('../../spec/index.js');
  return loadJobFile(file);
}

interface HardwareOptionValues {
  gdr?: boolean | undefined;
  pcie?: { pcieGen: number; pcieLanes: number };
  nvlinkBandwidth?: number;
  ncclVersion?: string;
  set?: string[] | undefined;
  bandwidth?: number;
}

/** The hardware and NCCL flags as job overrides; `--set` read here, with the field named on error. */
async function hardwareOverrides(options: HardwareOptionValues, command: string): Promise<JobOverrides> {
  const { fieldOverridesFrom } = await import('../../spec/index.js');
  const fields = fieldOverridesFrom({
    ...(options.set !== undefined ? { set: options.set } : {}),
    ...(options.pcie !== undefined ? { pcie: options.pcie } : {}),
    ...(options.nvlinkBandwidth !== undefined ? { nvlinkBandwidthGBps: options.nvlinkBandwidth } : {}),
  });
  if (command === 'scale' && fields.cluster.nodes !== undefined) {
    throw new UsageError('--set cluster.nodes does not apply to scale: the node counts come from --nodes');
  }
  return {
    fields,
    ...(options.gdr !== undefined ? { gpuDirectRdma: options.gdr } : {}),
    ...(options.ncclVersion !== undefined ? { ncclVersion: options.ncclVersion } : {}),
    ...(options.bandwidth !== undefined ? { bandwidthBps: options.bandwidth } : {}),
  };
}

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
  const withOutput = addHardwareOptions(command, NCCL_DEFAULT_HELP)
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON result to FILE');
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
  const withOutput = addHardwareOptions(command, NCCL_DEFAULT_HELP)
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON result to FILE');
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
  const withOutput = addHardwareOptions(command, NCCL_DEFAULT_HELP)
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON result to FILE');
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

export function registerExplain(program: Command): void {
  const command = program
    .command('explain')
    .description('the data path of one transfer step by step: kernel TCP against RoCE v2 with GPUDirect RDMA')
    .option('--fabric <preset>', 'fabric preset', 'tcp-100g')
    .option('--json', 'print the result envelope as JSON');
  addStoreOptions(command).action(async (options) => {
    const { explainFabric } = await import('../../model/index.js');
    const { getFabricPreset } = await import('../../spec/index.js');
    const { renderExplainText } = await import('../render/explain-text.js');
    const { emitResult } = await import('../emit.js');
    await emitResult(explainFabric(getFabricPreset(options.fabric)), options, renderExplainText);
  });
}
