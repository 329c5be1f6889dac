/** Temporary store files and worker processes for the store tests. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDbPath(name = 'aifabric.db'): string {
  return join(mkdtempSync(join(tmpdir(), 'aifabric-store-')), name);
}

export const SAVE_WORKER = join(import.meta.dirname, 'save-worker.ts');

export interface Worker {
  ids: number[];
  /** Other lines the worker printed (`ready`, `start MS`, `end MS`). */
  events: string[];
  /** Resolves with the exit code (or signal) once the process ends. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
  /** Resolves once the worker has printed this line. */
  waitForEvent(event: string): Promise<void>;
  /** Resolves once the worker has reported at least `count` committed ids. */
  waitForIds(count: number): Promise<void>;
}

export function startSaveWorker(
  dbPath: string,
  count: number,
  tag: string,
  payloadBytes = 0,
  goFile?: string,
  holdFile?: string,
): Worker {
  const args = [
    SAVE_WORKER,
    dbPath,
    String(count),
    tag,
    String(payloadBytes),
    ...(goFile ? [goFile] : []),
    ...(goFile && holdFile ? [holdFile] : []),
  ];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ids: number[] = [];
  const events: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const eventWaiters: { event: string; resolve: () => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (/^\d+$/.test(line.trim())) ids.push(Number(line));
      else if (line.trim() !== '') events.push(line.trim());
    }
    for (const waiter of waiters.filter((entry) => ids.length >= entry.count)) waiter.resolve();
    for (const waiter of eventWaiters.filter((entry) => events.includes(entry.event))) waiter.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    ids,
    events,
    done,
    waitForEvent: (event) =>
      new Promise<void>((resolve, reject) => {
        if (events.includes(event)) return resolve();
        eventWaiters.push({ event, resolve });
        void done.then(({ stderr: text }) => reject(new Error(`worker ended before "${event}": ${text}`)));
      }),
    kill: (signal) => child.kill(signal),
    waitForIds: (wanted) =>
      new Promise<void>((resolve, reject) => {
        if (ids.length >= wanted) return resolve();
        waiters.push({ count: wanted, resolve });
        void done.then(({ stderr: text }) =>
          reject(new Error(`worker ended after ${ids.length} saves: ${text}`)),
        );
      }),
  };
}
