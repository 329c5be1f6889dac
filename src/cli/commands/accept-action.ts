/** The body of `aifabric accept`, imported only when the command runs. */
import { writeFileAtomic } from '../../core/atomic-write.js';
import { EnvironmentError } from '../../core/errors.js';
import { runAcceptance, testbedLauncher, type AcceptStageName, type AcceptTool } from '../../accept/index.js';
import { toJunitXml, type CheckResult } from '../../check/index.js';
import { emitResult } from '../emit.js';
import { renderDrainList, renderPrometheus } from '../render/accept-files.js';
import { renderAcceptText } from '../render/accept-text.js';

export interface AcceptCommandOptions {
  testbed: string;
  tools: AcceptTool[];
  stages: AcceptStageName[];
  pairing: 'circle' | 'random';
  seed: number;
  budget: number;
  iperfSeconds: number;
  concurrency?: number;
  json?: boolean;
  out?: string;
  junit?: string;
  drainList?: string;
  prometheus?: string;
  save?: boolean;
  db?: string;
}

export async function runAcceptCommand(options: AcceptCommandOptions): Promise<void> {
  const { launcher, expectation } = await testbedLauncher(options.testbed);
  const script = process.argv[1];
  const result = await runAcceptance(launcher, expectation, {
    tools: options.tools,
    stages: options.stages,
    pairing: options.pairing,
    seed: options.seed,
    budgetS: options.budget,
    iperfSeconds: options.iperfSeconds,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    benchCommand: script ? [process.execPath, script] : ['aifabric'],
  });
  if (options.junit !== undefined) {
    // The JUnit writer groups findings per host: one suite per host, culprits as failures.
    const asCheck = { ...result, metrics: { hosts: launcher.hosts.map((host) => ({ name: host.name })) } } as unknown as CheckResult;
    writeFileAtomic(options.junit, toJunitXml(asCheck));
  }
  const ended = new Date();
  if (options.drainList !== undefined) writeFileAtomic(options.drainList, renderDrainList(result.metrics, ended));
  if (options.prometheus !== undefined) writeFileAtomic(options.prometheus, renderPrometheus(result.metrics, launcher.hosts.map((host) => host.name), ended));
  await emitResult(result, options, renderAcceptText);
  if (result.metrics.culprits.some((culprit) => culprit.severity === 'error')) process.exitCode = 1;
  if ((result.metrics as { budgetSpent?: boolean }).budgetSpent && result.metrics.culprits.length === 0) {
    throw new EnvironmentError(`accept: the budget of ${options.budget} s ran out before the stages finished (raise --budget)`);
  }
}
