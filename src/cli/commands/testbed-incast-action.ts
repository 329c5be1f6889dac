/**
 * The work behind `aifabric testbed incast`, imported only when it runs: options to the engine
 * (testbed/incast.ts), progress to stderr, the result as a table. Ctrl-C (or SIGTERM) aborts the
 * incast; the engine removes its testbed, and the command exits 128 + the signal without a result.
 */
import { isAifabricError } from '../../core/errors.js';
import { testbedIncast } from '../../testbed/index.js';
import { emitResult } from '../emit.js';
import { renderIncastText } from '../render/testbed-incast-text.js';
import type { TestbedIncastOptions } from './testbed.js';

export async function testbedIncastCommand(options: TestbedIncastOptions): Promise<void> {
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => (): void => {
    interrupted ??= signal;
    controller.abort();
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    const result = await testbedIncast(
      {
        name: options.name,
        senders: options.senders,
        rateBps: options.rate,
        bufferBytes: options.buffer,
        blockBytes: options.block,
        rounds: options.rounds,
        runs: options.runs,
        ...(options.cc !== undefined ? { congestionControl: options.cc } : {}),
        compareSim: options.compareSim === true,
      },
      { signal: controller.signal, onProgress: (line) => process.stderr.write(`${line}\n`) },
    );
    await emitResult(result, options, renderIncastText);
  } catch (error) {
    if (interrupted === undefined || !isAifabricError(error)) throw error;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  if (interrupted !== undefined) {
    process.stderr.write(
      `aifabric: testbed incast: interrupted (${interrupted}); its testbed ${options.name} was removed\n`,
    );
    process.exitCode = interrupted === 'SIGINT' ? 130 : 143;
  }
}
