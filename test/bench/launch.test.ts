/**
 * Launcher detection and local launch, as a user meets them (issue 9, defect 14 and the Ctrl-C
 * Low item), each through the built CLI: half a launcher's variables is an error, not a one-rank
 * run; `--np` says and stores "local"; a bad MASTER_PORT is named as such; one fault is printed
 * once, not once per rank; Ctrl-C ends an `--np` run with 130 like a one-rank run.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { detectLaunch } from '../../src/bench/index.js';
import { isAlive } from './helpers.js';
import { runCli } from '../helpers/run-cli.js';

const tiny = ['-b', '8', '-e', '8', '-n', '1', '-w', '0'];

describe('launcher variables', () => {
  it('half a pair is refused, naming both variables (Slurm in an salloc shell excepted)', () => {
    expect(() => detectLaunch({ WORLD_SIZE: '2' })).toThrow(
      'WORLD_SIZE=2 is set but RANK is not (torchrun sets both); set both or neither',
    );
    expect(() => detectLaunch({ OMPI_COMM_WORLD_RANK: '1' })).toThrow(/OMPI_COMM_WORLD_SIZE is not/);
    expect(detectLaunch({ SLURM_NTASKS: '4' })).toMatchObject({ rank: 0, size: 1 });
  });

  it('--np ranks report the local launcher', () => {
    expect(detectLaunch({ RANK: '1', WORLD_SIZE: '3', AIFABRIC_LOCAL_NP: '3' })).toMatchObject({
      rank: 1,
      size: 3,
      source: 'local (--np 3)',
    });
  });
});

describe('through the CLI', () => {
  it('WORLD_SIZE=2 without RANK: exit 2, one line', async () => {
    const run = await runCli(['bench', 'tcp', ...tiny], { env: { WORLD_SIZE: '2', RANK: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(
      'aifabric: WORLD_SIZE=2 is set but RANK is not (torchrun sets both); set both or neither',
    );
  });

  it('MASTER_PORT=abc: exit 2 naming MASTER_PORT, not "x:abc"', async () => {
    const run = await runCli(['bench', 'tcp', ...tiny], { env: { MASTER_PORT: 'abc' } });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(
      'aifabric: invalid MASTER_PORT: "abc" (expected a port number 1..65535)',
    );
  });

  it('--np 2 prints and stores launcher "local (--np 2)"', async () => {
    const text = await runCli(['bench', 'tcp', '--np', '2', ...tiny]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('(launcher: local (--np 2))');
    expect(text.stdout).not.toContain('torchrun');
    const json = await runCli(['bench', 'tcp', '--np', '2', '--json', ...tiny]);
    expect((JSON.parse(json.stdout) as { inputs: { launcher: string } }).inputs.launcher).toBe(
      'local (--np 2)',
    );
  });

  it('a rendezvous fault under --np 3 is printed once, with one line counting the other ranks', async () => {
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
    const { port } = squatter.address() as net.AddressInfo;
    try {
      const run = await runCli(
        ['bench', 'tcp', '--np', '3', '--rendezvous', `127.0.0.1:${port}`, '--timeout', '3', ...tiny],
        { timeoutMs: 30_000 },
      );
      expect(run.code).toBe(3);
      const errors = run.stderr.split('\n').filter((line) => line.startsWith('aifabric: '));
      expect(errors, run.stderr).toHaveLength(2);
      expect(errors[0]).toMatch(/rendezvous|listen/);
      expect(errors[1]).toBe('aifabric: (2 more rank(s) stopped with it; AIFABRIC_DEBUG=1 prints each)');
    } finally {
      squatter.close();
    }
  });

  it('Ctrl-C during an --np run exits 130 and leaves no rank behind', async () => {
    let pids: number[] = [];
    let sent = false;
    const run = await runCli(
      ['bench', 'tcp', '--np', '2', '-b', '16M', '-e', '16M', '-n', '100000', '-w', '0', '-c', '0'],
      {
        timeoutMs: 60_000,
        onStdout: (soFar, pid) => {
          if (sent || !soFar.includes('#  Rank  1')) return;
          sent = true;
          pids = [...soFar.matchAll(/Pid\s+(\d+)/g)].map((match) => Number(match[1]));
          process.kill(pid, 'SIGINT');
        },
      },
    );
    expect(sent).toBe(true);
    expect(run.code).toBe(130);
    expect(pids).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pids.filter(isAlive)).toEqual([]);
  });
});
