#!/usr/bin/env node
/**
 * Entry point: parse, run, and turn errors into one or two lines and the contract's exit codes
 * (2 usage or input, 3 environment). Stack traces only with AIFABRIC_DEBUG=1.
 */
import { CommanderError } from '@commander-js/extra-typings';
import { isAifabricError } from '../core/errors.js';
import { checkOutputOptions } from './output-checks.js';
import { buildProgram } from './program.js';

/**
 * After the reader of our output goes away (`aifabric ... | head -1`), commands that manage child
 * processes get this long to stop them (they listen for SIGTERM) before we exit anyway.
 */
const CLOSED_PIPE_GRACE_MS = 2_000;

let outputClosed = false;

function fail(message: string, exitCode: number, error: unknown): never {
  if (outputClosed) process.exit(0);
  process.stderr.write(`aifabric: ${message}\n`);
  if (process.env.AIFABRIC_DEBUG === '1' && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  process.exit(exitCode);
}

/**
 * A closed pipe on stdout or stderr ends the command quietly with status 0, as Unix tools do, instead
 * of an unhandled 'error' event. Commands with children (bench --np, testbed) stop them on SIGTERM.
 */
function exitQuietlyOnClosedPipe(): void {
  const onError = (error: NodeJS.ErrnoException): void => {
    if (outputClosed) return;
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') {
      // Any other failure of our own output (EIO, ENOSPC on a redirect) is the environment: exit 3.
      outputClosed = true;
      try {
        process.stderr.write(`aifabric: cannot write output: ${error.code ?? error.message}\n`);
      } finally {
        process.exit(3);
      }
    }
    outputClosed = true;
    if (process.listenerCount('SIGTERM') === 0) process.exit(0);
    process.emit('SIGTERM', 'SIGTERM');
    setTimeout(() => process.exit(0), CLOSED_PIPE_GRACE_MS);
  };
  process.stdout.on('error', onError);
  process.stderr.on('error', onError);
}

async function main(): Promise<void> {
  exitQuietlyOnClosedPipe();
  try {
    const program = buildProgram();
    program.hook('preAction', (_program, actionCommand) => checkOutputOptions(actionCommand));
    await program.parseAsync(process.argv);
    if (outputClosed) process.exit(0);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message; help and version are not errors.
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      ) {
        process.exit(0);
      }
      process.exit(outputClosed ? 0 : 2);
    }
    if (isAifabricError(error)) fail(error.message, error.exitCode, error);
    const message = error instanceof Error ? error.message : String(error);
    fail(`internal error: ${message} (set AIFABRIC_DEBUG=1 for the stack trace)`, 70, error);
  }
}

void main();
