import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

// End-to-end, through the built CLI: the `check --from` defects a new user hit (issue 9, defects 7
// and 9, and the out-of-range facts of its Low list).
const fixtures = join(REPO_ROOT, 'test', 'fixtures', 'check');

interface Envelope {
  findings: { severity: string; ruleId: string; host?: string; evidence?: string; message: string }[];
  metrics: { hosts: { name: string; captures: { source: string; kind: string }[] }[]; notes: string[] };
}

const firstLine = (text: string): string => text.split('\n')[0] ?? '';
const errorsOf = (envelope: Envelope): string[] =>
  envelope.findings
    .filter((finding) => finding.severity === 'error')
    .map((finding) => `${finding.ruleId} ${finding.host ?? ''}`)
    .sort();

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'aifabric-check-defects-'));
}

describe('check --from: host folders beside a stray file (defect 9)', () => {
  it('the fixture tree, with generate.mjs beside its folders, is one host per folder and shows the rdma.gid-index error', async () => {
    const result = await runCli(['check', '--from', fixtures, '--json']);
    expect(result.code).toBe(1);
    const envelope = JSON.parse(result.stdout) as Envelope;
    expect(envelope.metrics.hosts.map((host) => host.name)).toEqual([
      'busbw-60pct',
      'gid-roce-v1',
      'gpu-nic-sys',
      'healthy-roce',
      'port-down',
      'qos',
      'straggler-8-hosts',
    ]);
    expect(errorsOf(envelope)).toContain('rdma.gid-index gid-roce-v1');
    expect(errorsOf(envelope)).toContain('rdma.port-state port-down');
    // healthy-roce stays healthy: nothing from another folder is merged into it.
    expect(errorsOf(envelope).filter((entry) => entry.endsWith(' healthy-roce'))).toEqual([]);
    expect(
      envelope.metrics.hosts.flatMap((host) => host.captures.map((capture) => capture.source)),
    ).not.toContain('generate.mjs');
    expect(envelope.metrics.notes).toContain(
      "generate.mjs: reads as mlnx-qos output but sits beside the host folders (a host's captures go in its folder), ignored",
    );
  });

  it('two host folders and a script quoting a capture: two hosts, the script named in a note', async () => {
    const dir = tempDir();
    cpSync(join(fixtures, 'healthy-roce'), join(dir, 'node-a'), { recursive: true });
    cpSync(join(fixtures, 'gid-roce-v1'), join(dir, 'node-b'), { recursive: true });
    writeFileSync(
      join(dir, 'collect.sh'),
      readFileSync(join(fixtures, 'healthy-roce', 'rdma_links.log'), 'utf8'),
    );
    const result = await runCli(['check', '--from', dir, '--json']);
    expect(result.code).toBe(1);
    const envelope = JSON.parse(result.stdout) as Envelope;
    expect(envelope.metrics.hosts.map((host) => host.name)).toEqual(['node-a', 'node-b']);
    expect(errorsOf(envelope)).toEqual(['rdma.gid-index node-b']);
    expect(envelope.metrics.notes).toContain(
      "collect.sh: reads as rdma-link output but sits beside the host folders (a host's captures go in its folder), ignored",
    );
  });

  it('one host with a single sorting subfolder (counters/) is still one host', async () => {
    const result = await runCli(['check', '--from', join(fixtures, 'healthy-roce'), '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Envelope).metrics.hosts.map((host) => host.name)).toEqual([
      'healthy-roce',
    ]);
  });
});

describe('check --from: paths that cannot be read (defect 7)', () => {
  it('check --from /proc/self: exit 2 with one line, no internal error', async () => {
    const result = await runCli(['check', '--from', '/proc/self']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'aifabric: --from /proc/self: a kernel pseudo-filesystem (/proc), not a folder of captured tool outputs\n',
    );
  });

  it('a FIFO, a dangling symlink and a symlink to a folder inside --from are named in notes, never read (no blocking)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'host1'));
    cpSync(join(fixtures, 'healthy-roce', 'virt'), join(dir, 'host1', 'virt'));
    execFileSync('mkfifo', [join(dir, 'host1', 'pipe')]);
    symlinkSync(join(dir, 'gone'), join(dir, 'host1', 'dangling'));
    symlinkSync(join(fixtures, 'healthy-roce'), join(dir, 'host1', 'elsewhere'));
    // A symlink to a regular file is read like the file itself.
    symlinkSync(join(fixtures, 'healthy-roce', 'rdma_links.log'), join(dir, 'host1', 'links'));
    const result = await runCli(['check', '--from', join(dir, 'host1'), '--json'], { timeoutMs: 30_000 });
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout) as Envelope;
    expect(envelope.metrics.hosts[0]!.captures.map((capture) => `${capture.source}=${capture.kind}`)).toEqual(
      ['links=rdma-link', 'virt=virt'],
    );
    expect(envelope.metrics.notes).toEqual(
      expect.arrayContaining([
        'dangling: a symlink to a missing file, skipped',
        'elsewhere: a symlink to a folder, not followed',
        'pipe: a FIFO, not a captured file, skipped',
      ]),
    );
  });
});

describe('check: facts out of range (Low)', () => {
  it('NCCL_NSOCKS_PERTHREAD=-5 is an error naming the file and line, not "-5 socket(s)"', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'job.env.sh'),
      'export NCCL_SOCKET_NTHREADS=1\nexport NCCL_NSOCKS_PERTHREAD=-5\n',
    );
    const result = await runCli(['check', '--from', dir, '--fabric', 'tcp-100g']);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('-5 socket(s)');
    expect(result.stdout).toMatch(/ERROR tcp\.sockets +NCCL_NSOCKS_PERTHREAD=-5 is out of range/);
    expect(result.stdout).toContain('evidence: job.env.sh:2 NCCL_NSOCKS_PERTHREAD=-5');
  });

  it('a negative busbw in an nccl-tests row is a busbw.range error at that line, and the plateau is judged without it', async () => {
    const dir = tempDir();
    cpSync(join(fixtures, 'healthy-roce'), dir, { recursive: true });
    const log = readFileSync(join(dir, 'all_reduce_2node.log'), 'utf8').split('\n');
    const index = log.findIndex((line) => /^\s*17179869184\s/.test(line));
    expect(index).toBeGreaterThan(0);
    log[index] = log[index]!.replace(/(\s)(\d+\.\d+)(\s+0\s)/, '$1-$2$3');
    writeFileSync(join(dir, 'all_reduce_2node.log'), log.join('\n'));
    const result = await runCli(['check', '--from', dir, '--json']);
    expect(result.code).toBe(1);
    const envelope = JSON.parse(result.stdout) as Envelope;
    expect(errorsOf(envelope)).toEqual([`busbw.range ${dir.split('/').pop()!}`]);
    const range = envelope.findings.find((finding) => finding.ruleId === 'busbw.range')!;
    expect(range.evidence).toMatch(
      new RegExp(`^all_reduce_2node\\.log:${index + 1} out-of-place busbw -\\d`),
    );
    expect(envelope.findings.find((finding) => finding.ruleId === 'busbw.plateau')?.severity).toBe('pass');
  });

  it('the same log unedited has no busbw.range finding (the rule can tell)', async () => {
    const result = await runCli(['check', '--from', join(fixtures, 'healthy-roce'), '--json']);
    expect(firstLine(result.stderr)).toBe('');
    expect((JSON.parse(result.stdout) as Envelope).findings.map((finding) => finding.ruleId)).not.toContain(
      'busbw.range',
    );
  });
});
