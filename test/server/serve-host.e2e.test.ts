import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkListenHost } from '../../src/server/index.js';
import { runCli } from '../helpers/run-cli.js';

// issue 9, Low: `serve --host 256.1.1.1` exited 3 (a failed lookup at listen time); a malformed
// address is bad usage, found before the database is opened.
describe('serve --host', () => {
  it('serve --host 256.1.1.1 exits 2 with one line, before opening the database', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'aifabric-serve-host-')), 'absent.db');
    const run = await runCli(['serve', '--host', '256.1.1.1', '--port', '0', '--db', db], {
      timeoutMs: 20_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'aifabric: invalid value for --host: "256.1.1.1" is not an IPv4 address (four numbers 0 to 255 separated by dots)\n',
    );
    expect(run.stdout).toBe('');
  });

  it('a malformed IPv6 address or host name is exit 2 too', async () => {
    for (const host of ['::g', 'bad_host!', '1.2.3']) {
      const run = await runCli(['serve', '--host', host, '--port', '0'], { timeoutMs: 20_000 });
      expect(run.code, host).toBe(2);
      expect(run.stderr.split('\n')[0], host).toMatch(
        new RegExp(`^aifabric: invalid value for --host: "${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`),
      );
    }
  });

  it('accepts what a machine can listen on: IPv4, IPv6, names', () => {
    for (const host of [
      '127.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'localhost',
      'node01.cluster.local',
      'my-host',
    ])
      expect(() => checkListenHost(host), host).not.toThrow();
    for (const host of ['256.1.1.1', '1.2.3.4.5', '', ' 127.0.0.1', 'a/b', '-lead', 'trail-', 'x'.repeat(64)])
      expect(() => checkListenHost(host), host).toThrow(/invalid value for --host/);
  });
});
