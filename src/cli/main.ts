#!/usr/bin/env node
/**
 * Entry point: parse, run, and turn errors into one or two lines and the contract's exit codes
 * (2 usage or input, 3 environment). Stack traces only with AIFABRIC_DEBUG=1.
 */
import { CommanderError } from '@commander-js/extra-typings';
import { isAifabricError } from '../core/errors.js';
import { buildProgram } from './program.js';

function fail(message: string, exitCode: number, error: unknown): never {
  process.stderr.write(`aifabric: ${message}\n`);
  if (process.env.AIFABRIC_DEBUG === '1' && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  process.exit(exitCode);
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message; help and version are not errors.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) {
        process.exit(0);
      }
      process.exit(2);
    }
    if (isAifabricError(error)) fail(error.message, error.exitCode, error);
    const message = error instanceof Error ? error.message : String(error);
    fail(`internal error: ${message} (set AIFABRIC_DEBUG=1 for the stack trace)`, 70, error);
  }
}

void main();
