/**
 * A separate process that saves results into a store, printing each id once its transaction has
 * committed: the concurrency and crash tests run two of these at once, or kill one mid-write.
 * Usage: node --import tsx save-worker.ts DB COUNT TAG [PAYLOAD_BYTES [GO_FILE [HOLD_FILE]]]   (COUNT 0 = until killed)
 * With GO_FILE it prints `ready`, then waits for that file to exist, so two workers start writing together.
 * With HOLD_FILE it also waits, after its first committed save, for that file to exist: the test creates it once
 * every worker has committed one, so their writing spans overlap however the scheduler orders the processes.
 */
import { existsSync } from 'node:fs';
import { makeResult } from '../../src/core/envelope.js';
import { RunStore } from '../../src/store/index.js';

const [dbPath, countText, tag, payloadText, goFile, holdFile] = process.argv.slice(2);
if (!dbPath || !countText || !tag) throw new Error('usage: save-worker.ts DB COUNT TAG [PAYLOAD_BYTES]');
const count = Number(countText);
const padding = 'x'.repeat(Number(payloadText ?? '0'));
if (goFile) {
  process.stdout.write('ready\n');
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 5));
}
const store = new RunStore(dbPath, { busyTimeoutMs: 30_000 });
process.stdout.write(`start ${Date.now()}\n`);
for (let index = 0; count === 0 || index < count; index += 1) {
  const rows = Array.from({ length: 16 }, (_, row) => ({
    sizeBytes: 2 ** (row + 10),
    busbwGBps: row + index / 1000,
  }));
  const id = store.save(
    makeResult('collective', { op: 'all_reduce', fabric: tag, index }, { rows, padding }),
  );
  process.stdout.write(`${id}\n`);
  if (index === 0 && holdFile)
    while (!existsSync(holdFile)) await new Promise((resolve) => setTimeout(resolve, 5));
}
process.stdout.write(`end ${Date.now()}\n`);
store.close();
