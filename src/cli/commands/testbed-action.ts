/** The work behind `aifabric testbed up|run|fault|status|down`, imported only when one of them runs. */
import {
  parseFault,
  testbedDown,
  testbedDownResult,
  testbedFault,
  testbedFaultResult,
  testbedRun,
  testbedStatus,
  testbedStatusResult,
  testbedUp,
  testbedUpResult,
} from '../../testbed/index.js';
import { emitResult } from '../emit.js';
import {
  renderTestbedDownText,
  renderTestbedFaultText,
  renderTestbedStatusText,
  renderTestbedUpText,
} from '../render/testbed-text.js';
import type {
  TestbedDownOptions,
  TestbedFaultOptions,
  TestbedRunOptions,
  TestbedStatusOptions,
  TestbedUpOptions,
} from './testbed.js';

export async function testbedUpCommand(options: TestbedUpOptions): Promise<void> {
  const faults = options.fault.map(parseFault);
  const info = await testbedUp({
    name: options.name,
    hosts: options.hosts,
    rateBps: options.rate,
    bufferBytes: options.buffer,
    faults,
    ...(options.leaves !== undefined ? { leaves: options.leaves } : {}),
    ...(options.uplinkRate !== undefined ? { uplinkRateBps: options.uplinkRate } : {}),
  });
  await emitResult(testbedUpResult(info), options, renderTestbedUpText);
}

export async function testbedRunCommand(command: string[], options: TestbedRunOptions): Promise<number> {
  const result = await testbedRun(
    options.name,
    command,
    options.timeout !== undefined ? { timeoutS: options.timeout } : {},
  );
  if (result.timedOut) {
    process.stderr.write(
      `aifabric: testbed run: timed out after ${options.timeout} s (--timeout); killed what still ran\n`,
    );
    return 3;
  }
  if (result.exitCode !== 0) {
    const failed = result.hosts.map((code, rank) => [rank, code] as const).filter(([, code]) => code !== 0);
    process.stderr.write(
      `aifabric: testbed run: ${failed.map(([rank, code]) => `host ${rank} exited ${code}`).join(', ')}\n`,
    );
  }
  return result.exitCode;
}

export async function testbedFaultCommand(options: TestbedFaultOptions): Promise<void> {
  const faults = options.fault.map(parseFault);
  const outcome = await testbedFault(options.name, faults);
  await emitResult(testbedFaultResult(outcome), options, renderTestbedFaultText);
}

export async function testbedStatusCommand(options: TestbedStatusOptions): Promise<void> {
  const status = await testbedStatus(options.name);
  await emitResult(testbedStatusResult(status), options, renderTestbedStatusText);
}

export async function testbedDownCommand(options: TestbedDownOptions): Promise<void> {
  const down = await testbedDown(options.name);
  await emitResult(testbedDownResult(down), options, renderTestbedDownText);
}
