/**
 * Run one diagnostic tool for `check --live`: execFile with an argument array (never a shell),
 * a timeout, and an outcome instead of an exception, since a missing tool is normal on most hosts.
 */
import { execFile } from 'node:child_process';

export type ToolOutcome =
  | { status: 'ok'; stdout: string; exitCode: number }
  | { status: 'missing' }
  | { status: 'failed'; reason: string };

export const TOOL_TIMEOUT_MS = 15_000;

export function runTool(
  command: string,
  args: readonly string[],
  options: { timeoutMs?: number; acceptExitCodes?: readonly number[] } = {},
): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        timeout: options.timeoutMs ?? TOOL_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
        env: { ...process.env, LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ status: 'ok', stdout, exitCode: 0 });
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return resolve({ status: 'missing' });
        if (code === 'EACCES') return resolve({ status: 'failed', reason: 'permission denied' });
        if (error.killed || (error as { signal?: string }).signal === 'SIGTERM')
          return resolve({
            status: 'failed',
            reason: `timed out after ${(options.timeoutMs ?? TOOL_TIMEOUT_MS) / 1000} s`,
          });
        const exitCode = typeof code === 'number' ? code : 1;
        // Some tools report through their exit code (systemd-detect-virt exits 1 when it prints `none`).
        if (options.acceptExitCodes?.includes(exitCode) && stdout.trim() !== '')
          return resolve({ status: 'ok', stdout, exitCode });
        const firstLine = (stderr || stdout).trim().split('\n')[0] ?? '';
        resolve({
          status: 'failed',
          reason: `exit ${exitCode}${firstLine ? `: ${firstLine.slice(0, 160)}` : ''}`,
        });
      },
    );
  });
}
