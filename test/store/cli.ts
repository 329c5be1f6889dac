/** Runs the built CLI as a user would (npm test builds first). */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function aifabric(args: string[], env: Record<string, string | undefined> = {}, nodeArgs: string[] = []): CliResult {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const run = spawnSync(process.execPath, [...nodeArgs, CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, AIFABRIC_DB: undefined, ...env },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
