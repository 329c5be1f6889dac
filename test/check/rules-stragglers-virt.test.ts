import { describe, expect, it } from 'vitest';
import { getFabricPreset } from '../../src/spec/index.js';
import { check, findingsOf, fixture, host, nonPass, scaleBusbw } from './helpers.js';

const roce = { fabric: getFabricPreset('roce-400g') };
const nodeLog = (n: number) => fixture('check', 'straggler-8-hosts', `node0${n}`, 'all_reduce_1node.txt');

describe('straggler.busbw and straggler.latency', () => {
  it('names the slow host among eight and passes the others', () => {
    const hosts = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => host(`node0${n}`, { 'log.txt': nodeLog(n) }));
    const result = check(hosts, roce);
    expect(nonPass(result)).toEqual(['error straggler.busbw node05']);
    expect(
      findingsOf(result, 'straggler.busbw').filter((finding) => finding.severity === 'pass'),
    ).toHaveLength(7);
    expect(findingsOf(result, 'straggler.latency').every((finding) => finding.severity === 'pass')).toBe(
      true,
    );
  });

  it('flags outlying small-message latency', () => {
    const slowStart = (text: string) =>
      text.replace(/^(\s+8\s+2\s+float\s+sum\s+-1\s+)(\S+)/m, (_m, head: string) => `${head}   61.20`);
    const hosts = [1, 2, 3, 4].map((n) =>
      host(`node0${n}`, { 'log.txt': n === 2 ? slowStart(nodeLog(n)) : nodeLog(n) }),
    );
    expect(nonPass(check(hosts, roce))).toEqual(['warn straggler.latency node02']);
  });

  it('needs three runs of the same test to compare; pair runs are named by their two hosts', () => {
    const two = check(
      [host('node01', { 'log.txt': nodeLog(1) }), host('node05', { 'log.txt': nodeLog(5) })],
      roce,
    );
    expect(findingsOf(two, 'straggler.busbw')).toEqual([]);
    expect(two.metrics.notes.join('\n')).toMatch(
      /straggler: all_reduce on 8 rank\(s\): 2 run\(s\); at least 3/,
    );
    const pair = fixture('check', 'healthy-roce', 'all_reduce_2node.log');
    const hosts = ['x', 'y', 'z'].map((name, index) =>
      host(name, {
        'pair.log': scaleBusbw(pair.replace(/gpu-a0([12])/g, `gpu-${name}$1`), index === 2 ? 0.7 : 1),
      }),
    );
    const result = check(hosts, roce);
    expect(findingsOf(result, 'straggler.busbw').map((finding) => finding.message.split(' ')[0])).toEqual([
      'gpu-x1+gpu-x2:',
      'gpu-y1+gpu-y2:',
      'gpu-z1+gpu-z2',
    ]);
    expect(nonPass(result)).toEqual(['error busbw.plateau z', 'error straggler.busbw z']);
  });
});

describe('virt.hypervisor', () => {
  const virtOf = (files: Record<string, string>) =>
    findingsOf(check([host('h', files)]), 'virt.hypervisor')[0];
  it('systemd-detect-virt kvm, a QEMU DMI vendor or the cpuinfo hypervisor flag warn; none passes', () => {
    expect(virtOf({ virt: 'kvm\n' })?.severity).toBe('warn');
    expect(
      virtOf({
        dmi: '/sys/class/dmi/id/sys_vendor:QEMU\n/sys/class/dmi/id/product_name:Standard PC (Q35 + ICH9, 2009)\n',
      })?.evidence,
    ).toBe('dmi:1 QEMU Standard PC (Q35 + ICH9, 2009)');
    expect(
      virtOf({
        cpu: 'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\nflags\t\t: fpu vme sse2 hypervisor avx\n',
      })?.evidence,
    ).toBe('cpu:4 flags: ... hypervisor ...');
    expect(virtOf({ virt: 'none\n', cpu: 'processor\t: 0\nflags\t\t: fpu vme sse2 avx\n' })?.severity).toBe(
      'pass',
    );
  });

  it('Amazon EC2 metal instances are bare metal, other EC2 instances are VMs; containers are info', () => {
    expect(virtOf({ dmi: 'sys_vendor: Amazon EC2\nproduct_name: p5.48xlarge\n' })?.severity).toBe('warn');
    expect(virtOf({ dmi: 'sys_vendor: Amazon EC2\nproduct_name: c5.metal\n' })?.severity).toBe('pass');
    expect(virtOf({ virt: 'docker\n' })?.severity).toBe('info');
  });
});
