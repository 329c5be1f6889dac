/**
 * Runs the built CLI (`node dist/cli/main.js ...`) as a user would, for end-to-end tests; `npm test`
 * builds dist/ before vitest. Never rejects: the exit code, stdout and stderr come back for asserting.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_PATH = join(REPO_ROOT, 'dist', 'cli', 'main.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first (npm test does)`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { cwd: options.cwd ?? REPO_ROOT, timeout: options.timeoutMs ?? 60_000, env: { ...process.env, AIFABRIC_DEBUG: '', ...options.env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
