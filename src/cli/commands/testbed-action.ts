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

interface StoreFlags {
  json?: true;
  save?: true;
  db?: string;
}

const emitOptions = (options: StoreFlags) => ({
  ...(options.json ? { json: true } : {}),
  ...(options.save ? { save: true } : {}),
  ...(options.db !== undefined ? { db: options.db } : {}),
});

export async function testbedUpCommand(
  options: {
    hosts: number;
    rate: number;
    buffer: number;
    name: string;
    fault: string[];
    leaves?: number;
    uplinkRate?: number;
  } & StoreFlags,
): Promise<void> {
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
  await emitResult(testbedUpResult(info), emitOptions(options), renderTestbedUpText);
}

export async function testbedRunCommand(
  name: string,
  command: string[],
  options: { timeout?: number } = {},
): Promise<number> {
  const result = await testbedRun(
    name,
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

export async function testbedFaultCommand(
  options: { name: string; fault: string[] } & StoreFlags,
): Promise<void> {
  const faults = options.fault.map(parseFault);
  const outcome = await testbedFault(options.name, faults);
  await emitResult(testbedFaultResult(outcome), emitOptions(options), renderTestbedFaultText);
}

export async function testbedStatusCommand(options: { name: string; json?: true }): Promise<void> {
  const status = await testbedStatus(options.name);
  await emitResult(testbedStatusResult(status), options.json ? { json: true } : {}, renderTestbedStatusText);
}

export async function testbedDownCommand(options: { name: string } & StoreFlags): Promise<void> {
  const down = await testbedDown(options.name);
  await emitResult(testbedDownResult(down), emitOptions(options), renderTestbedDownText);
}
