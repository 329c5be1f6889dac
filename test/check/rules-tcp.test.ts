import { describe, expect, it } from 'vitest';
import { getFabricPreset } from '../../src/spec/index.js';
import { check, findingsOf, fixture, host, nonPass } from './helpers.js';

const tcp100 = { fabric: getFabricPreset('tcp-100g') };
const sockets = (threads?: number, perThread?: number) =>
  [
    threads === undefined ? '' : `export NCCL_SOCKET_NTHREADS=${threads}`,
    perThread === undefined ? '' : `export NCCL_NSOCKS_PERTHREAD=${perThread}`,
    'export NCCL_SOCKET_IFNAME=eth0',
    'export NCCL_IB_DISABLE=1',
  ]
    .filter(Boolean)
    .join('\n') + '\n';

describe('tcp.sockets', () => {
  it('NCCL defaults (1 x 1) cannot fill 100G at 10 Gb/s per stream; 4 x 4 can; 8 x 16 is trimmed by NCCL to 8 x 8', () => {
    const at = (threads?: number, perThread?: number) =>
      findingsOf(check([host('h', { 'env.sh': sockets(threads, perThread) })], tcp100), 'tcp.sockets')[0]!;
    expect(at().severity).toBe('warn');
    expect(at().message).toMatch(/1 socket\(s\) per peer .* about 10 are needed/);
    expect(at(4, 4).severity).toBe('pass');
    expect(at(4, 2).severity).toBe('warn');
    expect(at(8, 16).severity).toBe('warn');
    expect(at(8, 16).message).toMatch(
      /128 sockets per peer is over NCCL's cap of 64: NCCL lowers NCCL_NSOCKS_PERTHREAD to 8 and opens 64/,
    );
    expect(at(3, 30).streams).toBe(63);
    expect(at(8, 16).evidence).toBe('env.sh:1 NCCL_SOCKET_NTHREADS=8 x NCCL_NSOCKS_PERTHREAD=16');
  });

  it('does not apply to RDMA fabrics', () => {
    expect(
      findingsOf(
        check([host('h', { 'env.sh': sockets() })], { fabric: getFabricPreset('roce-400g') }),
        'tcp.sockets',
      ),
    ).toEqual([]);
  });
});

describe('tcp.buffers', () => {
  // tcp-100g: RTT 31.2 us, so 2 x BDP = 2 x 100e9 x 31.2e-6 / 8 = 780000 B.
  it('real SAP HANA sysctl.conf (16 MiB limits) holds 2 x BDP at 100G', () => {
    const result = check(
      [host('h', { 'sysctl.conf': fixture('sysctl', 'saphana-azure-anf-sysctl.conf') })],
      tcp100,
    );
    const [buffers] = findingsOf(result, 'tcp.buffers');
    expect(buffers?.severity).toBe('pass');
    expect(buffers?.message).toMatch(/= 780000 B/);
  });

  it('Linux defaults: tcp_rmem/wmem max 6 MiB / 4 MiB pass at 100G; core rmem_max 212992 is info; at 400G with a small tcp_wmem, a warning', () => {
    const defaults =
      'net.core.rmem_max = 212992\nnet.core.wmem_max = 212992\nnet.ipv4.tcp_rmem = 4096\t131072\t6291456\nnet.ipv4.tcp_wmem = 4096\t16384\t4194304\n';
    const at100 = findingsOf(check([host('h', { sysctl: defaults })], tcp100), 'tcp.buffers')[0]!;
    expect(at100.severity).toBe('info');
    expect(at100.message).toMatch(/net\.core\.rmem_max max 212992, net\.core\.wmem_max max 212992/);
    const small = defaults.replace('4096\t16384\t4194304', '4096\t16384\t1048576');
    const at400 = findingsOf(
      check([host('h', { sysctl: small })], { fabric: getFabricPreset('tcp-400g') }),
      'tcp.buffers',
    )[0]!;
    expect(at400.severity).toBe('warn');
    expect(at400.evidence).toBe('sysctl:4 net.ipv4.tcp_wmem max 1048576');
    expect(nonPass(check([host('h', { sysctl: small })], { fabric: getFabricPreset('tcp-400g') }))).toEqual([
      'warn tcp.buffers h',
    ]);
  });
});
