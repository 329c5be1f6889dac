import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { collectFromDir } from '../../src/check/collect/from-dir.js';
import { recogniseText } from '../../src/check/collect/recognise.js';
import { parseCpuinfo, parseDmi, parseVirt } from '../../src/check/collect/host-identity.js';
import { parseMlnxQos } from '../../src/check/qos/mlnx-qos.js';
import { parseSonicConfigDb } from '../../src/check/qos/sonic-config-db.js';
import { fixture, fixturesDir } from './helpers.js';

describe('SONiC config_db.json QoS tables', () => {
  it('expands port lists and queue ranges of a real QoS config', () => {
    const facts = parseSonicConfigDb(
      fixture('check', 'qos', 'sonic-rest-test-qos-config-azure-lossless.json'),
    )!;
    expect(facts.portQos).toHaveLength(44);
    expect(facts.portQos[0]).toMatchObject({ port: 'Ethernet0', pfcEnabled: [3, 4] });
    expect(facts.wredProfiles).toEqual([
      {
        name: 'AZURE_LOSSLESS',
        ecn: 'ecn_all',
        greenMinBytes: 104000,
        greenMaxBytes: 312000,
        greenDropProbabilityPct: null,
        line: 26,
      },
    ]);
    // 44 ports x queues 3-4 carry the profile (`[WRED_PROFILE|AZURE_LOSSLESS]` reference form).
    expect(facts.queues).toHaveLength(88);
    expect(
      facts.queues
        .filter((queue) => queue.queue === 3)
        .every((queue) => queue.wredProfile === 'AZURE_LOSSLESS'),
    ).toBe(true);
  });

  it('reads the 202012+ plain reference form and PORT speeds', () => {
    const text = JSON.stringify(
      {
        PORT: { Ethernet0: { speed: '400000' } },
        QUEUE: { 'Ethernet0|3': { wred_profile: 'ROCE' } },
        WRED_PROFILE: {
          ROCE: { ecn: 'ecn_all', green_min_threshold: '150000', green_max_threshold: '1500000' },
        },
      },
      null,
      2,
    );
    const facts = parseSonicConfigDb(text)!;
    expect(facts.portSpeedsMbps).toEqual({ Ethernet0: 400000 });
    expect(facts.queues).toEqual([
      { port: 'Ethernet0', queue: 3, wredProfile: 'ROCE', line: expect.any(Number) as number },
    ]);
  });

  it('is not fooled by other JSON', () => {
    expect(parseSonicConfigDb('{"start": {"sum_sent": {"bytes": 1}}}')).toBeNull();
    expect(recogniseText(fixture('iperf3', 'gke-client-tcp-json-3.6.json'))?.kind).toBe('iperf3');
  });
});

describe('mlnx_qos, systemd-detect-virt, DMI, cpuinfo', () => {
  it('reads trust, the dscp2prio map and the PFC row of the real mlnx_qos page', () => {
    const facts = parseMlnxQos(fixture('check', 'qos', 'mellanox-doc2792-mlnx_qos-pfc-0267.txt'))!;
    expect(facts).toMatchObject({
      interfaceName: 'eth2',
      trust: 'dscp',
      pfcEnabled: [0, 2, 6, 7],
      pfcLine: 16,
    });
    expect(facts.dscpToPriority[26]).toBe(3);
    expect(facts.dscpToPriority[48]).toBe(6);
  });

  it('systemd-detect-virt output is one known word; anything else is not it', () => {
    expect(parseVirt('kvm\n')).toEqual({ technology: 'kvm', category: 'vm', line: 1 });
    expect(parseVirt('none')).toMatchObject({ category: 'none' });
    expect(parseVirt('docker\n')).toMatchObject({ category: 'container' });
    expect(parseVirt('kvm\nqemu\n')).toBeNull();
    expect(parseVirt('hello\n')).toBeNull();
  });

  it('DMI lines as grep prints them, and cpuinfo flags', () => {
    expect(
      parseDmi('/sys/class/dmi/id/product_name:VMware7,1\n/sys/class/dmi/id/sys_vendor:VMware, Inc.\n'),
    ).toEqual({ sysVendor: 'VMware, Inc.', productName: 'VMware7,1', sysVendorLine: 2, productNameLine: 1 });
    expect(
      parseCpuinfo('processor\t: 0\nflags\t\t: fpu sse2\n\nprocessor\t: 1\nflags\t\t: fpu sse2\n'),
    ).toMatchObject({ processors: 2, hypervisorFlag: false, flagsLine: 2 });
  });

  it('no recogniser throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        recogniseText(text);
        parseSonicConfigDb(text);
        parseMlnxQos(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('collectFromDir', () => {
  it('one host per subfolder (nested files included), files beside them as their own scope, hidden and unknown files skipped with notes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-from-'));
    mkdirSync(join(dir, 'node-a', 'deep'), { recursive: true });
    mkdirSync(join(dir, 'node-b'));
    writeFileSync(join(dir, 'node-a', 'x1'), fixture('check', 'healthy-roce', 'rdma_links.log'));
    writeFileSync(join(dir, 'node-a', 'deep', 'x2'), 'kvm\n');
    writeFileSync(join(dir, 'node-a', '.hidden'), 'kvm\n');
    writeFileSync(join(dir, 'node-b', 'README.md'), '# how these were captured\n\nrun the scripts\n');
    writeFileSync(
      join(dir, 'switch-config_db.json'),
      fixture('check', 'qos', 'sonic-rest-test-qos-config-azure-lossless.json'),
    );
    const collected = await collectFromDir(dir);
    expect(
      collected.hosts.map((host) => [
        host.host,
        host.captures.map((capture) => `${capture.source}=${capture.kind}`),
      ]),
    ).toEqual([
      ['node-a', ['node-a/deep/x2=virt', 'node-a/x1=rdma-link']],
      [expect.stringMatching(/^aifabric-from-/) as string, ['switch-config_db.json=sonic-config-db']],
    ]);
    expect(collected.notes).toEqual([
      'node-b/README.md: not a recognised tool output, skipped',
      'node-b: no recognised tool output, host left out',
    ]);
  });

  it("a capture that holds only the tool's error is named as such", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-from-'));
    writeFileSync(join(dir, 'topo'), 'bash: nvidia-smi: command not found\n');
    writeFileSync(join(dir, 'virt'), 'none\n');
    const collected = await collectFromDir(dir);
    expect(collected.notes).toEqual([
      'topo: the captured tool failed or was missing ("bash: nvidia-smi: command not found"), skipped',
    ]);
  });

  it('a stray capture-like file beside host folders is left out with a note, however many host folders there are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-from-'));
    mkdirSync(join(dir, 'node-a'));
    writeFileSync(join(dir, 'node-a', 'virt'), 'kvm\n');
    writeFileSync(
      join(dir, 'generate.mjs'),
      fixture('check', 'qos', 'mellanox-doc2792-mlnx_qos-pfc-0267.txt'),
    );
    const collected = await collectFromDir(dir);
    expect(
      collected.hosts.map((host) => [host.host, host.captures.map((capture) => capture.source)]),
    ).toEqual([['node-a', ['node-a/virt']]]);
    expect(collected.notes).toEqual([
      "generate.mjs: reads as mlnx-qos output but sits beside the host folders (a host's captures go in its folder), ignored",
    ]);
  });

  it('a host whose top level describes the machine keeps one machine-wide subfolder as its own (topo/)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-from-'));
    mkdirSync(join(dir, 'topo'));
    writeFileSync(join(dir, 'links'), fixture('check', 'healthy-roce', 'rdma_links.log'));
    writeFileSync(join(dir, 'topo', 'topo-m.txt'), fixture('check', 'healthy-roce', 'topo-m.txt'));
    const collected = await collectFromDir(dir);
    expect(collected.hosts).toHaveLength(1);
    expect(collected.hosts[0]!.captures.map((capture) => `${capture.source}=${capture.kind}`)).toEqual([
      'links=rdma-link',
      'topo/topo-m.txt=nvidia-smi-topo',
    ]);
  });

  it('a folder whose top level describes one machine is that host; its subfolders are its own (counters/)', async () => {
    const collected = await collectFromDir(join(fixturesDir, 'check', 'healthy-roce'));
    expect(collected.hosts.map((host) => host.host)).toEqual(['healthy-roce']);
    expect(collected.hosts[0]!.captures.map((capture) => capture.source)).toContain('counters/ens108np0.t1');
    expect(collected.hosts[0]!.captures.map((capture) => capture.kind).sort()).toEqual([
      'ethtool',
      'ethtool',
      'ibv-devinfo',
      'mlnx-qos',
      'nccl-env',
      'nccl-tests',
      'nvidia-smi-topo',
      'rdma-link',
      'show-gids',
      'virt',
    ]);
  });
});
