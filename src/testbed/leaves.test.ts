/**
 * The two-tier testbed's pure parts: where hosts sit under leaves, the checks on --leaves and
 * --uplink-rate, and the CPU cgroup helpers (controller lookup from /proc/mounts text, quota,
 * the shell that joins a cgroup before it execs the command).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../core/index.js';
import { cgroupName, findCpuController, joinCgroup, quotaMicros } from './cgroup.js';
import { hostBridge, leafOf, uplinkName } from './names.js';
import { validateSpec } from './up.js';

describe('leafOf', () => {
  it('places hosts contiguously and evenly', () => {
    expect(Array.from({ length: 12 }, (_, i) => leafOf(i, 12, 3))).toEqual([
      0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
    ]);
    expect(Array.from({ length: 6 }, (_, i) => leafOf(i, 6, 2))).toEqual([0, 0, 0, 1, 1, 1]);
    expect(Array.from({ length: 6 }, (_, i) => leafOf(i, 6, 4))).toEqual([0, 0, 1, 2, 2, 3]);
    expect(Array.from({ length: 3 }, (_, i) => leafOf(i, 3, 1))).toEqual([0, 0, 0]);
  });

  it('every leaf has a host whenever leaves <= hosts', () => {
    for (let hosts = 1; hosts <= 40; hosts++) {
      for (let leaves = 1; leaves <= hosts; leaves++) {
        const used = new Set(Array.from({ length: hosts }, (_, i) => leafOf(i, hosts, leaves)));
        expect(used.size).toBe(leaves);
      }
    }
  });

  it('names bridges and uplinks', () => {
    expect(hostBridge(5, 12, 1)).toBe('br0');
    expect(hostBridge(5, 12, 3)).toBe('leaf1');
    expect(uplinkName(1)).toBe('leaf1-uplink');
  });
});

describe('validateSpec with leaves', () => {
  const base = { name: 'tl', hosts: 6, rateBps: 200e6, bufferBytes: 131072 };
  it('keeps the single switch by default', () => {
    expect(validateSpec(base).leaves).toBe(1);
  });

  it.each([
    [{ leaves: 2 }, '--leaves 2 needs --uplink-rate RATE'],
    [{ leaves: 7, uplinkRateBps: 50e6 }, 'invalid value for --leaves: 7 (expected 1 to --hosts 6'],
    [{ uplinkRateBps: 50e6 }, 'invalid value for --uplink-rate: a single-switch testbed has no uplinks'],
    [
      { leaves: 2, uplinkRateBps: 1000 },
      'invalid value for --uplink-rate: 1000 bit/s (expected at least 8kbit)',
    ],
    [
      { leaves: 2, uplinkRateBps: 1e15 },
      'invalid value for --uplink-rate: 1000000 Gbit/s (expected at most 800 Gbit/s)',
    ],
  ])('refuses %j', (extra, message) => {
    expect(() => validateSpec({ ...base, ...extra })).toThrow(UsageError);
    expect(() => validateSpec({ ...base, ...extra })).toThrow(message);
  });

  it('checks leaf faults against --leaves and --uplink-rate, and MTU against --buffer', () => {
    const spec = { ...base, leaves: 2, uplinkRateBps: 50e6 };
    expect(
      validateSpec({ ...spec, faults: [{ leaf: 1, kind: 'uplink-rate', value: 20e6 }] }).faults,
    ).toHaveLength(1);
    expect(() => validateSpec({ ...spec, faults: [{ leaf: 2, kind: 'uplink-rate', value: 20e6 }] })).toThrow(
      'unknown leaf leaf2: a 2-leaf testbed has leaf0..leaf1',
    );
    expect(() =>
      validateSpec({ ...base, bufferBytes: 4000, faults: [{ host: 1, kind: 'mtu', value: 9000 }] }),
    ).toThrow('a 9014-byte frame does not fit in --buffer 4000 bytes');
  });
});

describe('CPU cgroups', () => {
  it('finds the cpu controller of a cgroup v1 mount table', () => {
    const mounts = [
      'cgroup2 /sys/fs/cgroup/unified-none cgroup2 rw 0 0',
      'cgroup /sys/fs/cgroup/cpuacct cgroup rw,cpuacct 0 0',
      'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
    ].join('\n');
    expect(findCpuController(mounts)).toEqual({ version: 1, root: '/sys/fs/cgroup/cpu' });
    expect(findCpuController('proc /proc proc rw 0 0')).toBeUndefined();
  });

  it('prefers a cgroup v2 mount whose controllers include cpu', () => {
    const root = mkdtempSync(join(tmpdir(), 'aifabric-cg-'));
    try {
      spawnSync('sh', ['-c', `echo "cpuset cpu io memory" > ${root}/cgroup.controllers`]);
      expect(findCpuController(`cgroup2 ${root} cgroup2 rw 0 0\ncgroup /x cgroup rw,cpu 0 0`)).toEqual({
        version: 2,
        root,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('quota is F times the 100 ms period, at least 1 ms', () => {
    expect(quotaMicros(0.25)).toBe(25_000);
    expect(quotaMicros(2)).toBe(200_000);
    expect(quotaMicros(0.001)).toBe(1000);
    expect(cgroupName('tb1-h3')).toBe('aifabric-tb1-h3');
  });

  it("joinCgroup writes the shell's own pid and execs the command unparsed", () => {
    const folder = mkdtempSync(join(tmpdir(), 'aifabric-cg-'));
    try {
      const [program, ...args] = joinCgroup(folder, ['sh', '-c', 'echo "$$ $1"', 'x', 'a b;$(echo no)']);
      const result = spawnSync(program!, args, { encoding: 'utf8' });
      expect(result.status).toBe(0);
      const [pid, ...rest] = result.stdout.trim().split(' ');
      expect(rest.join(' ')).toBe('a b;$(echo no)');
      // The pid written is the one the command ran as (exec keeps it).
      expect(readFileSync(join(folder, 'cgroup.procs'), 'utf8').trim()).toBe(pid);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
