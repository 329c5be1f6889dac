import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.js';

// End-to-end: the built CLI, run as a user would (npm test builds dist/ first).
const root = REPO_ROOT;
const run = (args: string[]): Promise<CliRun> => runCli(args);

function expectOneLineError(result: CliRun, pattern: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('aifabric collective', () => {
  it('prints the envelope with unrounded rows and nccl-tests busbw', async () => {
    const result = await run(['collective', '--op', 'all_gather', '--nodes', '4', '--gpus-per-node', '8', '-b', '1M', '-e', '64M', '-f', '4', '--json']);
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.kind).toBe('collective');
    expect(envelope.schemaVersion).toBe(1);
    expect(envelope.tool.name).toBe('aifabric');
    expect(envelope.metrics.rows.map((row: { sizeBytes: number }) => row.sizeBytes)).toEqual([1048576, 4194304, 16777216, 67108864]);
    for (const row of envelope.metrics.rows) {
      expect(row.busbwGBps / row.algbwGBps).toBeCloseTo(31 / 32, 12);
      expect(row.algbwGBps).toBeCloseTo(row.sizeBytes / (row.timeUs * 1e-6) / 1e9, 9);
      expect(['ring', 'tree', 'hierarchical']).toContain(row.algo);
    }
  });

  it('is pure alpha-beta with --alpha and --bandwidth', async () => {
    const result = await run(['collective', '--nodes', '8', '--gpus-per-node', '1', '--algo', 'ring', '--alpha', '5us', '--bandwidth', '100Gbps', '-b', '1G', '-e', '1G', '--json']);
    const row = JSON.parse(result.stdout).metrics.rows[0];
    const expected = ((2 * 7) / 8) * (1024 ** 3 / 12.5e9) + 14 * 5e-6;
    expect(Math.abs(row.timeUs * 1e-6 - expected) / expected).toBeLessThan(1e-9);
  });

  it('prints a table in nccl-tests layout', async () => {
    const result = await run(['collective', '--nodes', '2', '-b', '8', '-e', '1K']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/#\s+size\s+count\s+type\s+redop\s+root\s+time\s+algbw\s+busbw/);
    expect(result.stdout).toMatch(/^\s+8\s+2\s+float\s+sum\s+-1\s+[\d.]+\s+[\d.]+\s+[\d.]+/m);
    expect(result.stdout).toMatch(/# Avg bus bandwidth\s+: [\d.]+\n/);
  });
});

describe('bad input: one line, exit 2, no stack trace', () => {
  it('zero nodes', async () => expectOneLineError(await run(['collective', '--nodes', '0']), /--nodes.*"0".*at least 1/));
  it('a negative size', async () => expectOneLineError(await run(['collective', '-b', '-8']), /invalid size for -b: "-8"/));
  it('an unknown preset', async () => expectOneLineError(await run(['collective', '--fabric', 'roce-9000g']), /unknown fabric preset "roce-9000g" \(expected one of tcp-25g/));
  it('an unknown flag', async () => expectOneLineError(await run(['collective', '--frobnicate']), /unknown option '--frobnicate'/));
  it('a bad rate', async () => expectOneLineError(await run(['collective', '--alpha', '2us', '--bandwidth', '12']), /invalid rate for --bandwidth: "12"/));
  it('an invalid YAML file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-'));
    const file = join(dir, 'job.yaml');
    writeFileSync(file, 'name: x\ncluster:\n  nodes: -3\nmodel: llama3-8b\nsequenceLength: 1024\nglobalBatchSize: 8\n');
    expectOneLineError(await run(['plan', file]), new RegExp(`^aifabric: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:10 cluster\\.nodes: `));
  });
  it('a missing file', async () => expectOneLineError(await run(['plan', '/nonexistent.yaml']), /\/nonexistent\.yaml: cannot read file/));
});

describe('job commands', () => {
  const job = join(root, 'examples', 'jobs', 'llama3-8b-fsdp-tcp.yaml');

  it('plan breaks the step down and overrides the fabric', async () => {
    const tcp = JSON.parse((await run(['plan', job, '--json'])).stdout);
    const rdma = JSON.parse((await run(['plan', job, '--fabric', 'roce-100g', '--json'])).stdout);
    expect(tcp.kind).toBe('plan');
    expect(tcp.metrics.fabric).toBe('tcp-100g');
    expect(rdma.metrics.fabric).toBe('roce-100g');
    expect(tcp.metrics.stepTimeMs).toBeGreaterThan(rdma.metrics.stepTimeMs);
    const m = tcp.metrics;
    expect(m.stepTimeMs).toBeCloseTo(m.computeMs + m.bubbleMs + m.exposedCommMs + m.stragglerPenaltyMs, 6);
  });

  it('compare gives one row per fabric with the data-path cost', async () => {
    const result = JSON.parse((await run(['compare', job, '--fabrics', 'tcp-100g,roce-100g,ib-edr-100g', '--json'])).stdout);
    expect(result.metrics.rows.map((row: { fabric: string }) => row.fabric)).toEqual(['tcp-100g', 'roce-100g', 'ib-edr-100g']);
    expect(result.metrics.rows[0].hostCpuCoresPerNode).toBeGreaterThan(result.metrics.rows[1].hostCpuCoresPerNode);
  });

  it('scale names the pay-off point', async () => {
    const result = await run(['scale', job, '--nodes', '1..64', '--fabrics', 'tcp-100g,roce-100g']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/RDMA (pays off from \d+ nodes?|is never at least 10% faster)/);
  });
});

describe('demo, explain, presets', () => {
  it('demo writes its results into the folder it creates', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'aifabric-')), 'nested', 'out');
    const result = await run(['demo', '--out', dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/RDMA pays off from \d+ node/);
    for (const name of ['compare.json', 'scale.json', 'collective-tcp-100g.json', 'collective-roce-400g.json', 'collective-ib-ndr-400g.json']) {
      expect(existsSync(join(dir, name)), name).toBe(true);
    }
    const scale = JSON.parse(readFileSync(join(dir, 'scale.json'), 'utf8'));
    expect(scale.metrics.fabrics.map((f: { fabric: string }) => f.fabric)).toEqual(['tcp-100g', 'roce-400g', 'ib-ndr-400g']);
    expect(scale.metrics.fabrics[0].points.map((p: { nodes: number }) => p.nodes)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
  });

  it('explain contrasts kernel TCP with GPUDirect RDMA', async () => {
    const result = JSON.parse((await run(['explain', '--fabric', 'tcp-100g', '--json'])).stdout);
    const [tcp, rdma] = result.metrics.paths;
    expect(tcp.transport).toBe('tcp');
    expect(rdma.transport).toBe('roce');
    expect(rdma.gpuDirectRdma).toBe(true);
    expect(tcp.hostMemoryBytesPerByte).toBeGreaterThan(0);
    expect(rdma.hostMemoryBytesPerByte).toBe(0);
    expect(tcp.contextSwitchesPerMiB).toBeGreaterThan(0);
    expect(rdma.contextSwitchesPerMiB).toBe(0);
    expect(tcp.cpuSecondsPerGB).toBeGreaterThan(50 * rdma.cpuSecondsPerGB);
  });

  it('presets lists each kind', async () => {
    const result = JSON.parse((await run(['presets', 'gpus', '--json'])).stdout);
    expect(result.metrics.gpus.map((g: { id: string }) => g.id)).toContain('b200');
    expect(result.metrics.fabrics).toBeUndefined();
    expect((await run(['presets', 'widgets'])).code).toBe(2);
  });
});

describe('--save on every result-producing command', () => {
  it('records collective, plan, compare, scale, parse, sim and bench tcp results in one database', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'aifabric-')), 'runs.db');
    const job = join(root, 'examples', 'jobs', 'llama3-8b-fsdp-tcp.yaml');
    const commands = [
      ['collective', '--nodes', '2', '-b', '1M', '-e', '4M'],
      ['plan', job],
      ['compare', job, '--fabrics', 'tcp-100g,roce-100g'],
      ['scale', job, '--nodes', '1,2', '--fabrics', 'tcp-100g,roce-100g'],
      ['parse', join(root, 'test', 'fixtures', 'nccl-tests', 'oci-2x8-a100-roce-all_reduce-v2.17.9.log')],
      ['sim', join(root, 'examples', 'scenarios', 'pfc-victim.yaml')],
      ['bench', 'tcp', '--np', '2', '-b', '1K', '-e', '4K', '-n', '2', '-w', '1'],
    ];
    for (const args of commands) {
      const result = await run([...args, '--save', '--db', db]);
      expect([0, 1], `${args.join(' ')}: ${result.stderr}`).toContain(result.code);
      expect(result.stderr).toMatch(/saved as run \d+/);
    }
    const listed = JSON.parse((await run(['runs', 'list', '--db', db, '--json'])).stdout);
    const kinds = listed.metrics.runs.map((r: { kind: string }) => r.kind).sort();
    expect(kinds).toEqual(['bench.tcp', 'collective', 'compare', 'parse', 'plan', 'scale', 'sim'].sort());
  });
});
