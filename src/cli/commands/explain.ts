/** `aifabric explain [--fabric PRESET]`: the data path of one transfer, kernel TCP against RoCE v2 with GPUDirect RDMA. */
import type { Command } from '@commander-js/extra-typings';
import { addJsonOption, addStoreOptions } from '../store-options.js';

export function registerExplain(program: Command): void {
  const command = program
    .command('explain')
    .description('the data path of one transfer step by step: kernel TCP against RoCE v2 with GPUDirect RDMA')
    .option('--fabric <preset>', 'fabric preset', 'tcp-100g');
  addStoreOptions(addJsonOption(command)).action(async (options) => {
    const { explainFabric } = await import('../../model/index.js');
    const { getFabricPreset } = await import('../../spec/index.js');
    const { renderExplainText } = await import('../render/explain-text.js');
    const { emitResult } = await import('../emit.js');
    await emitResult(explainFabric(getFabricPreset(options.fabric)), options, renderExplainText);
  });
}
