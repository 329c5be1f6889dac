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
    const result = await run([
      'collective',
      '--op',
      'all_gather',
      '--nodes',
      '4',
      '--gpus-per-node',
      '8',
      '-b',
      '1M',
      '-e',
      '64M',
      '-f',
      '4',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.kind).toBe('collective');
    expect(envelope.schemaVersion).toBe(1);
    expect(envelope.tool.name).toBe('aifabric');
    expect(envelope.metrics.rows.map((row: { sizeBytes: number }) => row.sizeBytes)).toEqual([
      1048576, 4194304, 16777216, 67108864,
    ]);
    for (const row of envelope.metrics.rows) {
      expect(row.busbwGBps / row.algbwGBps).toBeCloseTo(31 / 32, 12);
      expect(row.algbwGBps).toBeCloseTo(row.sizeBytes / (row.timeUs * 1e-6) / 1e9, 9);
      expect(['ring', 'tree', 'hierarchical']).toContain(row.algo);
    }
  });

  it('is pure alpha-beta with --alpha and --bandwidth', async () => {
    const result = await run([
      'collective',
      '--nodes',
      '8',
      '--gpus-per-node',
      '1',
      '--algo',
      'ring',
      '--alpha',
      '5us',
      '--bandwidth',
      '100Gbps',
      '-b',
      '1G',
      '-e',
      '1G',
      '--json',
    ]);
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
  it('zero nodes', async () =>
    expectOneLineError(await run(['collective', '--nodes', '0']), /--nodes.*"0".*at least 1/));
  it('a negative size', async () =>
    expectOneLineError(await run(['collective', '-b', '-8']), /invalid size for -b: "-8"/));
  it('an unknown preset', async () =>
    expectOneLineError(
      await run(['collective', '--fabric', 'roce-9000g']),
      /unknown fabric preset "roce-9000g" \(expected one of tcp-25g/,
    ));
  it('an unknown flag', async () =>
    expectOneLineError(await run(['collective', '--frobnicate']), /unknown option '--frobnicate'/));
  it('a bad rate', async () =>
    expectOneLineError(
      await run(['collective', '--alpha', '2us', '--bandwidth', '12']),
      /invalid rate for --bandwidth: "12"/,
    ));
  it('an invalid YAML file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-'));
    const file = join(dir, 'job.yaml');
    writeFileSync(
      file,
      'name: x\ncluster:\n  nodes: -3\nmodel: llama3-8b\nsequenceLength: 1024\nglobalBatchSize: 8\n',
    );
    expectOneLineError(
      await run(['plan', file]),
      new RegExp(`^aifabric: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:10 cluster\\.nodes: `),
    );
  });
  it('a missing file', async () =>
    expectOneLineError(await run(['plan', '/nonexistent.yaml']), /\/nonexistent\.yaml: cannot read file/));
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
    const result = JSON.parse(
      (await run(['compare', job, '--fabrics', 'tcp-100g,roce-100g,ib-edr-100g', '--json'])).stdout,
    );
    expect(result.metrics.rows.map((row: { fabric: string }) => row.fabric)).toEqual([
      'tcp-100g',
      'roce-100g',
      'ib-edr-100g',
    ]);
    expect(result.metrics.rows[0].hostCpuCoresPerNode).toBeGreaterThan(
      result.metrics.rows[1].hostCpuCoresPerNode,
    );
  });

  it('compare adds the same-rate counterparts, names the NCCL net and splits each ratio into line rate x transport', async () => {
    const text = await run(['compare', job, '--fabrics', 'tcp-100g,roce-400g']);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines.find((line) => line.startsWith('roce-100g *'))).toMatch(/^roce-100g \*\s+IB\s/);
    expect(lines.find((line) => line.startsWith('tcp-400g *'))).toMatch(/^tcp-400g \*\s+Socket\s/);
    expect(text.stdout).toContain('Socket = NET/Socket (kernel TCP, host staging)');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^TCP 100G vs RoCE 400G: \d+\.\d{2}x = \d+\.\d{2} line rate x \d+\.\d{2} transport$/,
      ),
    );
    const json = JSON.parse(
      (await run(['compare', job, '--fabrics', 'tcp-100g,roce-400g', '--json'])).stdout,
    );
    expect(
      json.metrics.rows.map((row: { fabric: string; addedAsCounterpart?: boolean }) => [
        row.fabric,
        row.addedAsCounterpart === true,
      ]),
    ).toEqual([
      ['tcp-100g', false],
      ['roce-100g', true],
      ['roce-400g', false],
      ['tcp-400g', true],
    ]);
    const split = json.metrics.split;
    expect(Object.keys(split).sort()).toEqual([
      'from',
      'intermediate',
      'lineRate',
      'to',
      'total',
      'transport',
    ]);
    expect(Math.abs(split.lineRate * split.transport - split.total)).toBeLessThan(1e-9);
    expect(split.intermediate.fabric).toBe('tcp-400g');
    const bare = JSON.parse(
      (await run(['compare', job, '--fabrics', 'tcp-100g,roce-400g', '--no-counterparts', '--json'])).stdout,
    );
    expect(bare.metrics.rows.map((row: { fabric: string }) => row.fabric)).toEqual(['tcp-100g', 'roce-400g']);
    expect(bare.metrics.split.total).toBe(split.total);
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
    // The headline first: the ratio split into the faster port and the transport, both from the model.
    const [first, detail] = result.stdout.split('\n');
    expect(first).toMatch(
      /^TCP 100G vs RoCE 400G: \d+\.\d{2}x = \d+\.\d{2} line rate x \d+\.\d{2} transport$/,
    );
    expect(detail).toMatch(/^ {2}line rate tcp-100g -> tcp-400g .*transport tcp-400g -> roce-400g$/);
    expect(result.stdout).toMatch(/RDMA pays off from \d+ node/);
    for (const name of [
      'compare.json',
      'scale.json',
      'collective-tcp-100g.json',
      'collective-roce-400g.json',
      'collective-ib-ndr-400g.json',
    ]) {
      expect(existsSync(join(dir, name)), name).toBe(true);
    }
    const scale = JSON.parse(readFileSync(join(dir, 'scale.json'), 'utf8'));
    // Beside TCP 100G the RoCE fabric of its rate, beside RoCE 400G the TCP one (once: InfiniBand 400G would add it again).
    expect(
      scale.metrics.fabrics.map((f: { fabric: string; addedAsCounterpart?: boolean }) => [
        f.fabric,
        f.addedAsCounterpart === true,
      ]),
    ).toEqual([
      ['tcp-100g', false],
      ['roce-100g', true],
      ['roce-400g', false],
      ['tcp-400g', true],
      ['ib-ndr-400g', false],
    ]);
    expect(scale.metrics.splitsByNodes.map((entry: { nodes: number }) => entry.nodes)).toEqual([
      1, 2, 4, 8, 16, 32, 64, 128,
    ]);
    const compare = JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8'));
    const [, ratio, lineRate, transport] =
      /: (\d+\.\d{2})x = (\d+\.\d{2}) line rate x (\d+\.\d{2}) transport$/.exec(first ?? '') ?? [];
    expect([ratio, lineRate, transport]).toEqual(
      [compare.metrics.split.total, compare.metrics.split.lineRate, compare.metrics.split.transport].map(
        (value: number) => value.toFixed(2),
      ),
    );
    expect(scale.metrics.fabrics[0].points.map((p: { nodes: number }) => p.nodes)).toEqual([
      1, 2, 4, 8, 16, 32, 64, 128,
    ]);
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

describe('issue 9, model side: defects 3 and 16 and the Low items, through the built CLI', () => {
  const firstLine = (result: CliRun): string => result.stderr.split('\n')[0] ?? '';
  const writeJob = (text: string): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'aifabric-')), 'job.yaml');
    writeFileSync(file, text);
    return file;
  };
  const jobText = (cluster: string, top = ''): string =>
    `name: t\ncluster:\n  nodes: 2\n${cluster}model: llama3-8b\nsequenceLength: 4096\nglobalBatchSize: 16\n${top}`;

  it('defect 3: plan, compare and scale refuse `fabrik: tcp-100g` at its line, naming the key it meant', async () => {
    const file = writeJob(jobText('  fabrik: tcp-100g\n'));
    for (const args of [
      ['plan', file],
      ['compare', file],
      ['scale', file, '--nodes', '1,2'],
    ]) {
      const result = await run(args);
      expect(result.code, args[0]).toBe(2);
      expect(result.stdout).toBe('');
      expect(firstLine(result)).toBe(
        `aifabric: ${file}:4:11 cluster.fabrik: unknown key 'fabrik' (did you mean 'fabric'?)`,
      );
    }
  });

  it('defect 3: `computeEfficency: 0.9` is refused, not ignored', async () => {
    const file = writeJob(jobText('', 'computeEfficency: 0.9\n'));
    expectOneLineError(
      await run(['plan', file]),
      new RegExp(
        `^aifabric: ${escape(file)}:7:19 computeEfficency: unknown key 'computeEfficency' \\(did you mean 'computeEfficiency'\\?\\)$`,
      ),
    );
  });

  it('defect 3: check --cluster refuses a misspelt fabric instead of judging against roce-400g', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'aifabric-')), 'cluster.yaml');
    writeFileSync(file, 'nodes: 2\nfabrik: tcp-100g\n');
    const result = await run([
      'check',
      '--from',
      join(root, 'test', 'fixtures', 'check', 'healthy-roce'),
      '--cluster',
      file,
    ]);
    expectOneLineError(
      result,
      new RegExp(
        `^aifabric: ${escape(file)}:2:9 fabrik: unknown key 'fabrik' \\(did you mean 'fabric'\\?\\)$`,
      ),
    );
  });

  it('Low: a partial inline GPU names each missing field with its file:line:col', async () => {
    const file = writeJob(jobText('  gpu:\n    id: x\n    name: X\n    hbmGB: 80\n'));
    const result = await run(['plan', file]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `aifabric: ${file}:5:5 cluster.gpu.bf16DenseTflops: missing field of the inline GPU (expected number)`,
      `${file}:5:5 cluster.gpu.hbmBandwidthTBps: missing field of the inline GPU (expected number)`,
      `${file}:5:5 cluster.gpu.nvlinkBandwidthGBps: missing field of the inline GPU (expected number)`,
      `${file}:5:5 cluster.gpu.pcieGen: missing field of the inline GPU (expected number)`,
    ]);
  });

  it('Low: a partial inline fabric names its missing field, never a bare "Invalid input"', async () => {
    const file = writeJob(
      jobText(
        '  fabric:\n    id: f\n    name: F\n    transport: roce\n    lineRateGbps: 100\n    mtuBytes: 4096\n    headerBytesPerPacket: 0\n    perMessageLatencyUs: 2\n    switchHopLatencyUs: 1\n    nicEfficiency: 0.9\n    gpuDirectRdma: true\n    ncclNet: IB\n',
      ),
    );
    expectOneLineError(
      await run(['plan', file]),
      new RegExp(
        `^aifabric: ${escape(file)}:5:5 cluster\\.fabric\\.lossless: missing field of the inline fabric \\(expected boolean\\)$`,
      ),
    );
  });

  it('defect 16: a rate of 0 is refused', async () => {
    for (const rate of ['0Gbps', '0GB/s', '0bps']) {
      expectOneLineError(
        await run(['collective', '--alpha', '2us', '--bandwidth', rate]),
        new RegExp(
          `^aifabric: invalid rate for --bandwidth: "${escape(rate)}" \\(a rate must be above 0\\)$`,
        ),
      );
    }
    expectOneLineError(
      await run(['collective', '--bandwidth', '0Gbps']),
      /^aifabric: invalid rate for --bandwidth: "0Gbps" \(a rate must be above 0\)$/,
    );
  });

  it('defect 16: -f is a whole factor of at least 2, as nccl-tests', async () => {
    for (const factor of ['1.0000001', '1.5', '1', '0', '2.5']) {
      expectOneLineError(
        await run(['collective', '-f', factor]),
        new RegExp(
          `^aifabric: invalid value for -f: "${escape(factor)}" \\(expected a whole multiplication factor of at least 2`,
        ),
      );
    }
    const rows = JSON.parse((await run(['collective', '-b', '8', '-e', '1K', '-f', '4', '--json'])).stdout)
      .metrics.rows;
    expect(rows.map((row: { sizeBytes: number }) => row.sizeBytes)).toEqual([8, 32, 128, 512]);
  });

  it('defect 16: -b above -e is exit 2; -i steps by a fixed increment; -f with -i is refused', async () => {
    expectOneLineError(
      await run(['collective', '-b', '1M', '-e', '8']),
      /^aifabric: invalid sizes: -b 1048576 is above -e 8 \(expected -b <= -e\)$/,
    );
    expectOneLineError(
      await run(['collective', '-f', '2', '-i', '1M']),
      /^aifabric: -f and -i both set the step between sizes/,
    );
    expectOneLineError(
      await run(['collective', '-b', '0', '-e', '1G', '-i', '1']),
      /^aifabric: -b 0 -e 1073741824 -i 1 asks for 1073741825 sizes; the limit is 10000/,
    );
    const stepped = await run(['collective', '-b', '1M', '-e', '4M', '-i', '1M', '--json']);
    expect(stepped.code).toBe(0);
    expect(
      JSON.parse(stepped.stdout).metrics.rows.map((row: { sizeBytes: number }) => row.sizeBytes),
    ).toEqual([1, 2, 3, 4].map((n) => n * 1024 ** 2));
  });

  it('defect 16: sizes are whole elements, with no row of size 0 unless -b 0 asks for it', async () => {
    // all_gather on 2 x 8 = 16 ranks: a row needs 16 floats (64 bytes); 8, 16 and 32 bytes hold none.
    const gather = JSON.parse(
      (await run(['collective', '--op', 'all_gather', '-b', '8', '-e', '1K', '--json'])).stdout,
    ).metrics.rows;
    expect(gather.map((row: { sizeBytes: number }) => row.sizeBytes)).toEqual([64, 128, 256, 512, 1024]);
    expect(gather[0].count).toBe(1);
    const odd = JSON.parse((await run(['collective', '-b', '5', '-e', '100', '-f', '3', '--json'])).stdout)
      .metrics.rows;
    expect(odd.map((row: { sizeBytes: number }) => row.sizeBytes)).toEqual([4, 12, 44]);
    const zero = JSON.parse((await run(['collective', '-b', '0', '-e', '8', '--json'])).stdout).metrics.rows;
    expect(zero.map((row: { sizeBytes: number }) => row.sizeBytes)).toEqual([0, 4, 8]);
    expectOneLineError(
      await run(['collective', '--op', 'all_gather', '-b', '8', '-e', '32']),
      /^aifabric: no size from -b 8 to -e 32 holds a whole element: the smallest is 64 bytes \(4 bytes per element x 16 ranks for all_gather\)$/,
    );
  });

  it('Low: a one-rank all_reduce is a local copy with busbw 0, not 162,688 GB/s', async () => {
    const result = await run([
      'collective',
      '--nodes',
      '1',
      '--gpus-per-node',
      '1',
      '-b',
      '1M',
      '-e',
      '8G',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout).metrics.rows;
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      expect(row.busbwGBps).toBe(0);
      expect(row.algo).toBe('local');
      expect(row.algbwGBps).toBeGreaterThan(0);
      expect(row.algbwGBps).toBeLessThan(3350 / 2); // half the H100 SXM's 3.35 TB/s: a copy reads and writes
    }
    const text = await run(['collective', '--nodes', '1', '--gpus-per-node', '1', '-b', '1M', '-e', '1M']);
    expect(text.stdout).toMatch(/^# one rank moves nothing over the network/m);
    const broadcast = JSON.parse(
      (
        await run([
          'collective',
          '--op',
          'broadcast',
          '--nodes',
          '1',
          '--gpus-per-node',
          '1',
          '-b',
          '1G',
          '-e',
          '1G',
          '--json',
        ])
      ).stdout,
    ).metrics.rows[0];
    expect(broadcast.busbwGBps).toBe(broadcast.algbwGBps); // nccl-tests' broadcast factor is 1 at any n
  });

  it('Low: an --algo that does not apply to the op is exit 2 for every op, naming those that do', async () => {
    expectOneLineError(
      await run(['collective', '--op', 'broadcast', '--algo', 'tree']),
      /^aifabric: --algo tree does not apply to broadcast \(algorithms for broadcast: auto, ring\)$/,
    );
    expectOneLineError(
      await run(['collective', '--op', 'alltoall', '--algo', 'ring']),
      /^aifabric: --algo ring does not apply to alltoall: NCCL runs it as point-to-point sends \(algorithms for alltoall: auto\)$/,
    );
    expectOneLineError(
      await run(['collective', '--op', 'sendrecv', '--algo', 'hierarchical']),
      /^aifabric: --algo hierarchical does not apply to sendrecv: NCCL runs it as point-to-point sends \(algorithms for sendrecv: auto\)$/,
    );
    expectOneLineError(
      await run(['collective', '--op', 'all_gather', '--algo', 'tree']),
      /^aifabric: --algo tree does not apply to all_gather \(algorithms for all_gather: auto, ring, collnetdirect, nvls, pat, hierarchical\)$/,
    );
    expect(
      (await run(['collective', '--op', 'broadcast', '--algo', 'ring', '-b', '1M', '-e', '1M'])).code,
    ).toBe(0);
  });

  it('Low: node counts take 1e3 and 1000 alike, up to a documented bound of 1,000,000', async () => {
    const plain = JSON.parse(
      (await run(['collective', '--nodes', '1000', '-b', '1M', '-e', '1M', '--json'])).stdout,
    );
    const exponent = JSON.parse(
      (await run(['collective', '--nodes', '1e3', '-b', '1M', '-e', '1M', '--json'])).stdout,
    );
    expect(exponent.inputs.nodes).toBe(1000);
    expect(exponent.metrics.rows).toEqual(plain.metrics.rows);
    for (const nodes of ['1e9', '1000000000', '1000001']) {
      expectOneLineError(
        await run(['collective', '--nodes', nodes]),
        new RegExp(`^aifabric: invalid value for --nodes: "${nodes}" \\(expected at most 1000000 nodes\\)$`),
      );
    }
    expectOneLineError(
      await run(['collective', '--nodes', '1.5']),
      /^aifabric: invalid value for --nodes: "1.5" \(expected a whole number of at least 1\)$/,
    );
    expect((await run(['collective', '--help'])).stdout).toMatch(
      /--nodes <n>\s+number of nodes, 1 to 1000000/,
    );
    const job = join(root, 'examples', 'jobs', 'llama3-8b-fsdp-tcp.yaml');
    expectOneLineError(
      await run(['plan', job, '--nodes', '1e9']),
      /^aifabric: invalid value for --nodes: "1e9" \(expected at most 1000000 nodes\)$/,
    );
    expectOneLineError(
      await run(['scale', job, '--nodes', '1..2000000']),
      /^aifabric: invalid value for --nodes: "1..2000000" \(expected at most 1000000 nodes\)$/,
    );
    const file = writeJob(jobText('').replace('nodes: 2', 'nodes: 1000000000'));
    expectOneLineError(
      await run(['plan', file]),
      new RegExp(`^aifabric: ${escape(file)}:3:10 cluster\\.nodes: expected at most 1000000 nodes$`),
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
