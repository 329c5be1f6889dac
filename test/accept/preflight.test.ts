/**
 * accept's preflight limits (issue 11, "Preflight"): `ulimit -l`, the size of /dev/shm and the
 * clock, read on every host through the launcher. With RDMA tools a host short of pinned memory or
 * /dev/shm is a node at fault; with TCP tools alone the same is only a warning; a clock far off is
 * a warning culprit. Scripted hosts answer as Linux prints.
 */
import { describe, expect, it } from 'vitest';
import { runAcceptance, type AcceptLauncher } from '../../src/accept/index.js';
import { linkJson, ok, scriptedLauncher } from './scripted.js';
import { readClock, readMemlock, readShmBytes } from '../../src/accept/tools.js';

interface HostLimits {
  /** Error findings `check --live --json` reports on the host: [family, ruleId]. */
  live?: [string, string][];
  memlock?: string;
  shmKiB?: number;
  clockOffsetS?: number;
}

function limitsLauncher(limits: Record<string, HostLimits>): AcceptLauncher {
  const names = Object.keys(limits);
  return scriptedLauncher(names, (host, command) => {
    const mine = limits[names[host]!]!;
    if (command[0] === 'ip') return ok(linkJson(9000));
    if (command[0] === 'sh' && command[2] === 'ulimit -l') return ok(`${mine.memlock ?? 'unlimited'}\n`);
    if (command[0] === 'df')
      return ok(
        `Filesystem     1024-blocks  Used Available Capacity Mounted on\nshm              ${mine.shmKiB ?? 16777216}     0  ${mine.shmKiB ?? 16777216}       0% /dev/shm\n`,
      );
    if (command.includes('check') && command.includes('--live')) {
      const findings = (mine.live ?? []).map(([family, ruleId]) => ({
        severity: 'error',
        family,
        ruleId,
        message: `${ruleId} failed`,
      }));
      return ok(
        JSON.stringify({
          kind: 'check',
          findings: [
            ...findings,
            { severity: 'warn', family: 'virt', ruleId: 'virt.hypervisor', message: 'a VM' },
          ],
        }),
      );
    }
    if (command[0] === 'date') return ok(`${(Date.now() / 1000 + (mine.clockOffsetS ?? 0)).toFixed(9)}\n`);
    return ok('v');
  });
}

const base = {
  pairing: 'circle' as const,
  seed: 1,
  budgetS: 60,
  iperfSeconds: 1,
  benchCommand: ['aifabric'],
  stages: ['preflight' as const],
};

describe('preflight limits', () => {
  it('reads ulimit -l, df -Pk /dev/shm and date +%s.%N as Linux prints them', () => {
    expect(readMemlock('unlimited\n')).toBe(Number.POSITIVE_INFINITY);
    expect(readMemlock('65536\n')).toBe(65536 * 1024);
    expect(readMemlock('sh: ulimit: bad option')).toBeNull();
    expect(
      readShmBytes(
        'Filesystem     1024-blocks  Used Available Capacity Mounted on\nshm                  65536     0     65536       0% /dev/shm\n',
      ),
    ).toBe(64 * 2 ** 20);
    expect(readShmBytes('')).toBeNull();
    expect(readClock('1764662400.123456789\n')).toBeCloseTo(1764662400.1234567, 6);
  });

  it('with RDMA tools, a host with 64 KiB of memlock or a 64 MiB /dev/shm is a node; a clock 30 s off is a warning', async () => {
    const result = await runAcceptance(
      limitsLauncher({
        g1: {},
        g2: { memlock: '64' },
        g3: { shmKiB: 65536 },
        g4: { clockOffsetS: 30 },
        g5: {},
      }),
      { portRateBps: 400e9 },
      { ...base, tools: ['perftest'] },
    );
    const byId = new Map(result.metrics.culprits.map((c) => [c.id, c]));
    expect(byId.get('g2')).toMatchObject({ kind: 'node', severity: 'error' });
    expect(byId.get('g2')!.evidence.join('\n')).toContain('ulimit -l 64 KiB');
    expect(byId.get('g3')).toMatchObject({ kind: 'node', severity: 'error' });
    expect(byId.get('g3')!.evidence.join('\n')).toContain('/dev/shm 64 MiB');
    expect(byId.get('g4')).toMatchObject({ kind: 'node', severity: 'warn' });
    expect(byId.get('g4')!.evidence.join('\n')).toMatch(/clock ahead of this machine's by 30\.\d s/);
    expect(byId.has('g1') || byId.has('g5')).toBe(false);
  });

  it('with TCP tools alone the same limits are warnings, never culprits', async () => {
    const result = await runAcceptance(
      limitsLauncher({ g1: {}, g2: { memlock: '64' }, g3: { shmKiB: 65536 } }),
      { portRateBps: 100e9 },
      { ...base, tools: ['iperf3'] },
    );
    expect(result.metrics.culprits).toEqual([]);
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^g2: ulimit -l 64 KiB/),
        expect.stringMatching(/^g3: \/dev\/shm 64 MiB/),
      ]),
    );
  });

  it("check --live's errors on a host: a TCP one fails it; an RDMA one, with TCP tools alone, is a warning; its warnings are not culprits", async () => {
    const result = await runAcceptance(
      limitsLauncher({
        g1: {},
        g2: { live: [['tcp', 'tcp.rmem']] },
        g3: { live: [['rdma', 'rdma.gid-index']] },
      }),
      { portRateBps: 100e9 },
      { ...base, tools: ['bench-tcp'] },
    );
    expect(result.metrics.culprits.map((c) => [c.kind, c.id])).toEqual([['node', 'g2']]);
    expect(result.metrics.culprits[0]!.evidence.join('\n')).toContain(
      'check --live tcp.rmem: tcp.rmem failed',
    );
    expect(result.warnings).toContain(
      'g3: check --live rdma.gid-index: rdma.gid-index failed; not a problem for iperf3 and bench tcp',
    );
  });
});
