/** `aifabric presets [fabrics|gpus|models]`: the built-in presets with their key values. */
import { Command, Argument } from '@commander-js/extra-typings';
import { addJsonOption } from '../store-options.js';

const KINDS = ['fabrics', 'gpus', 'models'] as const;

export function registerPresets(program: Command): void {
  const command = program
    .command('presets')
    .description('list built-in fabrics, GPUs and models (ids are exact; lookups ignore case)')
    .addArgument(new Argument('[kind]', 'fabrics, gpus or models (default: all)').choices(KINDS));
  addJsonOption(command).action(async (kind, options) => {
    const { listPresets } = await import('../../spec/index.js');
    const { renderPresetsText } = await import('../render/presets-text.js');
    const { emitResult } = await import('../emit.js');
    await emitResult(listPresets(kind), options, renderPresetsText);
  });
}
