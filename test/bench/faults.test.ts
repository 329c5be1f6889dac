/**
 * Faults end every rank with exit 3 within --timeout, naming the rank and host that failed, and
 * leave no process behind: a rank killed mid-run, a rendezvous nobody answers, a port in use.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/bench/index.js';
import { isAlive } from './helpers.js';
import { runCli } from '../helpers/run-cli.js';

describe('faults', () => {
  it('kill one rank mid-run: the others exit 3 naming it, within the timeout, nothing left', async () => {
    let victim = -1;
    const pids: number[] = [];
    // A hang is no exit 3: the runner kills the CLI at timeoutMs (code null), failing the check below.
    const run = await runCli(
      [
        'bench',
        'tcp',
        '--np',
        '4',
        '--op',
        'all_reduce',
        '-b',
        '4M',
        '-e',
        '4M',
        '-n',
        '100000',
        '-w',
        '1',
        '-c',
        '0',
        '--timeout',
        '10',
      ],
      {
        timeoutMs: 60_000,
        onStdout: (soFar) => {
          if (victim > 0) return;
          const ranks = [...soFar.matchAll(/^# {2}Rank +(\d+) Group +\d+ Pid +(\d+)/gm)];
          if (ranks.length < 4) return;
          for (const match of ranks) pids.push(Number(match[2]));
          victim = pids[2]!;
          // Let the ranks get into the timed loop, then kill rank 2 hard.
          setTimeout(() => process.kill(victim, 'SIGKILL'), 500);
        },
      },
    );
    expect(victim).toBeGreaterThan(0);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/rank 2 \(host [^,]+, pid \d+\)/);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it('a rendezvous nobody answers ends with exit 3 within --timeout, naming rank 0', async () => {
    const port = await freeLoopbackPort();
    const run = await runCli(['bench', 'tcp', '-b', '8', '-e', '8', '--timeout', '2'], {
      env: { RANK: '1', WORLD_SIZE: '2', MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port) },
      // Far beyond --timeout 2: a rank that does not give up is killed here and fails the exit code below.
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`rendezvous with rank 0 at 127.0.0.1:${port} did not complete`);
  });

  it('rank 0 waiting for ranks that never come names them', async () => {
    const port = await freeLoopbackPort();
    const run = await runCli(['bench', 'tcp', '-b', '8', '-e', '8', '--timeout', '2'], {
      env: { RANK: '0', WORLD_SIZE: '3', MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port) },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('rank(s) 1, 2 of 3 did not join');
  });

  it('a rendezvous port in use: exit 3 saying so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const run = await runCli(['bench', 'tcp', '-b', '8', '-e', '8', '--timeout', '2'], {
        env: { RANK: '0', WORLD_SIZE: '2', MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port) },
      });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(
        `cannot listen for the rendezvous on 127.0.0.1:${port}: address already in use`,
      );
    } finally {
      blocker.close();
    }
  });
});
