/**
 * Running iproute2: always execFile with an argument array and a timeout, never a shell. A
 * missing tool or permission is an environment problem (exit 3) with the command in the message.
 */
import { execFile } from 'node:child_process';
import { EnvironmentError } from '../core/errors.js';

const COMMAND_TIMEOUT_MS = 15_000;

export interface ExecResult {
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[]): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: COMMAND_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        const detail = (stderr || error.message).trim().split('\n')[0];
        reject(new EnvironmentError(`${command} ${args.join(' ')}: ${detail}`));
      } else resolve({ stdout, stderr });
    });
  });
}

/** Like run, but a failure is expected and ignored (teardown of what may not exist). */
export async function runQuietly(command: string, args: string[]): Promise<boolean> {
  try {
    await run(command, args);
    return true;
  } catch {
    return false;
  }
}

/** Root and iproute2 are needed for namespaces; say so plainly instead of failing half-way. */
export async function requireNamespaces(): Promise<void> {
  if (process.platform !== 'linux') throw new EnvironmentError('testbed needs Linux network namespaces');
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new EnvironmentError(
      'testbed needs root to create network namespaces (run it as root or with sudo)',
    );
  }
  for (const tool of ['ip', 'tc']) {
    try {
      await run(tool, ['-V']);
    } catch {
      throw new EnvironmentError(
        `testbed needs iproute2 (\`${tool}\` not found or not working): apt-get install iproute2`,
      );
    }
  }
}

export async function listNamespaces(): Promise<string[]> {
  const { stdout } = await run('ip', ['netns', 'list']);
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}
