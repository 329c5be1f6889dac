/** The body of `aifabric check`, imported only when the command runs. */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { collectFromDir, collectLive, hasErrors, runCheck, toJunitXml } from '../../check/index.js';
import { renderCheckText } from '../render/check-text.js';
import { getFabricPreset, loadClusterFile } from '../../spec/index.js';
import { emitResult } from '../emit.js';
import type { CheckOptions } from './check.js';

export async function runCheckCommand(options: CheckOptions): Promise<void> {
  if (options.from !== undefined && options.live)
    throw new UsageError('check: give either --from DIR or --live, not both');
  if (options.from === undefined && !options.live)
    throw new UsageError('check: nothing to check (give --from DIR with captured outputs, or --live)');
  if (options.fabric !== undefined && options.cluster !== undefined)
    throw new UsageError('check: give either --fabric or --cluster (the cluster file names its fabric)');
  const fabric = options.fabric !== undefined ? getFabricPreset(options.fabric) : undefined;
  const cluster = options.cluster !== undefined ? loadClusterFile(options.cluster) : undefined;
  const collected = options.live ? await collectLive() : await collectFromDir(options.from!);
  const inputs: Record<string, unknown> = options.live ? { live: true } : { from: resolve(options.from!) };
  if (options.fabric !== undefined) inputs.fabric = options.fabric;
  if (options.cluster !== undefined) inputs.cluster = resolve(options.cluster);
  const result = runCheck(collected.hosts, {
    ...(fabric ? { fabric } : {}),
    ...(cluster ? { cluster } : {}),
    collectionNotes: collected.notes,
    inputs,
  });
  if (options.junit !== undefined) writeFileAtomic(options.junit, toJunitXml(result));
  await emitResult(result, options, renderCheckText);
  if (hasErrors(result)) process.exitCode = 1;
}
