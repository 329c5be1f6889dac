/** End-to-end: `node dist/cli/main.js sim ...` as a user runs it. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/run-cli.js';

const cli = (...args: string[]): Promise<CliRun> => runCli(args);

let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'aifabric-sim-cli-'));
});

describe('aifabric sim', () => {
  it('--json prints the envelope with the contract metrics and writes --out', async () => {
    const out = join(scratch, 'victim.json');
    const result = await cli(
      'sim',
      'examples/scenarios/pfc-victim.yaml',
      '--json',
      '--out',
      out,
      '--seed',
      '3',
    );
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.kind).toBe('sim');
    expect(envelope.inputs).toMatchObject({ scenario: 'pfc-victim', mode: 'packet', seed: 3 });
    for (const key of ['goodputGbps', 'drops', 'completionTimeUs', 'events'])
      expect(typeof envelope.metrics[key]).toBe('number');
    expect(envelope.metrics.drops).toBe(0);
    expect(envelope.timing.eventsPerSecond).toBeGreaterThan(0);
    expect(envelope.findings.some((f: { ruleId: string }) => f.ruleId === 'sim.pfc-victim')).toBe(true);
    expect(JSON.parse(readFileSync(out, 'utf8')).metrics.events).toBe(envelope.metrics.events);
    expect(result.stderr).toBe('');
  });

  it('prints a summary table without --json', async () => {
    const result = await cli('sim', 'examples/scenarios/incast-tcp-rto1ms.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/scenario incast-tcp-rto1ms \(packet mode, seed 1, 17 hosts, tcp\)/);
    expect(result.stdout).toMatch(/goodput \(Gb\/s\)/);
    expect(result.stdout).toMatch(/16 senders, 10 rounds/);
  });

  it('a bad scenario exits 2 with the YAML line', async () => {
    const file = join(scratch, 'bad.yaml');
    writeFileSync(
      file,
      'name: bad\ntopology:\n  kind: star\n  hosts: 2\n  linkRate: 10Gbps\nswitch:\n  buffer: 100\ntransport:\n  kind: tcp\nworkloads:\n  - { kind: flow, src: 0, dst: 1, size: 1MiB }\n',
    );
    const result = await cli('sim', file);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `aifabric: ${file}:7:11 switch.buffer: 100 B per port is smaller than one packet (1538 B on the wire)\n`,
    );
  });

  it('PFC headroom below the bound exits 2 naming the line; allowed, the drops are reported', async () => {
    const thin = (allow: boolean): string =>
      `name: thin\ntopology:\n  kind: star\n  hosts: 5\n  linkRate: 100Gbps\n  linkDelay: 5us\nswitch:\n  buffer: 512KiB\n  pfc:\n    headroom: 16KiB\n    allowInsufficientHeadroom: ${allow}\ntransport:\n  kind: roce\n  roce: { dcqcn: { enabled: false } }\nworkloads:\n  - { kind: incast, senders: 4, blockSize: 2MiB }\n`;
    const refused = join(scratch, 'thin.yaml');
    writeFileSync(refused, thin(false));
    const r1 = await cli('sim', refused);
    expect(r1.code).toBe(2);
    expect(
      r1.stderr.startsWith(
        `aifabric: ${refused}:10:15 switch.pfc.headroom: 16384 B is below the PFC headroom bound`,
      ),
    ).toBe(true);
    const allowed = join(scratch, 'thin-allowed.yaml');
    writeFileSync(allowed, thin(true));
    const r2 = await cli('sim', allowed, '--json');
    expect(r2.code).toBe(0);
    const envelope = JSON.parse(r2.stdout);
    expect(envelope.metrics.losslessDrops).toBeGreaterThan(0);
    expect(envelope.findings.some((f: { ruleId: string }) => f.ruleId === 'sim.lossless-drops')).toBe(true);
  });

  it('an unknown --mode is a usage error (exit 2)', async () => {
    const result = await cli('sim', 'examples/scenarios/pfc-victim.yaml', '--mode', 'quantum');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--mode/);
  });
});
