/**
 * End-to-end, through the built CLI: `aifabric parse` recognises outputs as users paste them (the
 * two pastes of issue 9), splits multi-host pastes, lists the kinds check reads, refuses a FIFO and
 * a device instead of blocking or growing without bound, and prints the good files when one of
 * several is bad (exit 2, the bad one named on stderr).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { knownKinds } from '../../src/parse/index.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

const PASTES = join(REPO_ROOT, 'test', 'fixtures', 'pastes');
const SHOW_GIDS_PASTE = join(PASTES, 'show-gids-prompt-indented-22-from-blog-roce-pve.txt');
const RDMA_LINK_PASTE = join(PASTES, 'rdma-link-dollar-prompt-elided-from-3fs-pr283.txt');

let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'aifabric-paste-cli-'));
});

describe('aifabric parse reads pastes', () => {
  it('the show_gids table indented by 22 spaces under `user@host:~$ show_gids`, without --kind', async () => {
    const text = await runCli(['parse', SHOW_GIDS_PASTE]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`${SHOW_GIDS_PASTE}: show-gids, 5 entries\n`);
    const json = await runCli(['parse', '--json', SHOW_GIDS_PASTE]);
    const file = JSON.parse(json.stdout).metrics.files[0];
    expect(file.kind).toBe('show-gids');
    expect(file.facts.gidsFound).toBe(5);
    // Line numbers are the paste's own: prompt on 1, header 2, dashes 3, first row 4.
    expect(file.facts.entries.map((entry: { line: number }) => entry.line)).toEqual([4, 5, 6, 7, 8]);
    expect(file.facts.entries[3]).toMatchObject({
      device: 'mlx5_0',
      index: 3,
      ipv4: '192.168.6.132',
      version: 'v2',
      netdev: 'mce0',
    });
    expect(file.warnings).toEqual([]);
  });

  it('the rdma link listing under `$ rdma link` with a `.......` line inside, without --kind', async () => {
    const json = await runCli(['parse', '--json', RDMA_LINK_PASTE]);
    expect(json.code).toBe(0);
    const file = JSON.parse(json.stdout).metrics.files[0];
    expect(file.kind).toBe('rdma-link');
    expect(
      file.facts.links.map((link: { device: string; line: number }) => [link.device, link.line]),
    ).toEqual([
      ['mlx5_0', 2],
      ['mlx5_1', 4],
    ]);
    expect(file.warnings).toEqual([
      { line: 3, message: '"......." marks lines left out of the paste: their facts are missing' },
    ]);
  });

  it('a pdsh paste of two hosts: one result per host, named by the prefix', async () => {
    const source = readFileSync(
      join(REPO_ROOT, 'test', 'fixtures', 'rdma-link', '3fs-pr283-two-roce-links.txt'),
      'utf8',
    )
      .trimEnd()
      .split('\n');
    const path = join(scratch, 'pdsh-rdma.txt');
    writeFileSync(
      path,
      `$ pdsh -w gpu-[01-02] rdma link show\n${source.flatMap((line) => [`gpu-01: ${line}`, `gpu-02: ${line}`]).join('\n')}\n`,
    );
    const text = await runCli(['parse', path]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      `${path} (host gpu-01): rdma-link, 2 links\n${path} (host gpu-02): rdma-link, 2 links\n`,
    );
    const files = JSON.parse((await runCli(['parse', '--json', path])).stdout).metrics.files;
    expect(files.map((file: { host: string }) => file.host)).toEqual(['gpu-01', 'gpu-02']);
  });

  it('CRLF, colour codes and Open MPI tags together', async () => {
    const source = readFileSync(
      join(REPO_ROOT, 'test', 'fixtures', 'show-gids', 'blog-roce-pve-mlx5-n-gids-found.txt'),
      'utf8',
    )
      .trimEnd()
      .split('\n');
    const path = join(scratch, 'crlf-ansi.txt');
    writeFileSync(
      path,
      `${source.map((line, index) => `[1,0]<stdout>:${index === 2 ? `\u001b[31m${line}\u001b[0m` : line}`).join('\r\n')}\r\n`,
    );
    const result = await runCli(['parse', path]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${path}: show-gids, 5 entries\n`);
  });
});

describe('aifabric parse: kinds check reads are registered parsers', () => {
  it('mlnx_qos and SONiC config_db are detected by content; --kind lists every kind', async () => {
    const qos = join(REPO_ROOT, 'test', 'fixtures', 'check', 'qos', 'mellanox-doc2792-mlnx_qos-pfc-0267.txt');
    const sonic = join(
      REPO_ROOT,
      'test',
      'fixtures',
      'check',
      'qos',
      'sonic-rest-test-qos-config-azure-lossless.json',
    );
    const json = JSON.parse((await runCli(['parse', '--json', qos, sonic])).stdout);
    expect(json.metrics.files.map((file: { kind: string }) => file.kind)).toEqual([
      'mlnx-qos',
      'sonic-config-db',
    ]);
    expect(json.metrics.files[0].facts.pfcEnabled).toEqual([0, 2, 6, 7]);
    const unknown = await runCli(['parse', '--kind', 'lspci', qos]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toMatch(
      /^aifabric: invalid value for --kind: "lspci" \(expected one of .*ethtool, mlnx-qos, sonic-config-db, virt, dmi, cpuinfo, pytorch-trace\)$/,
    );
    const help = await runCli(['parse', '--help']);
    // The help lists every registered kind (it is written out so that --help imports no parser).
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`(${knownKinds().join(', ')})`);
  });

  it('virt, dmi and cpuinfo captures', async () => {
    const root = join(REPO_ROOT, 'test', 'fixtures');
    const files = [
      join(root, 'virt', 'aifabric-dev-container-docker.txt'),
      join(root, 'dmi', '2daygeek-virtualbox-grep-pbs.txt'),
      join(root, 'cpuinfo', 'aifabric-dev-vm-xeon-2cpu-hypervisor.txt'),
    ];
    const json = JSON.parse((await runCli(['parse', '--json', ...files])).stdout);
    expect(json.metrics.files.map((file: { kind: string }) => file.kind)).toEqual(['virt', 'dmi', 'cpuinfo']);
    expect(json.metrics.files[1].facts).toMatchObject({
      sysVendor: 'innotek GmbH',
      productName: 'VirtualBox',
    });
    expect(json.metrics.files[2].facts).toMatchObject({ processors: 2, hypervisorFlag: true });
  });
});

describe('aifabric parse: inputs that would block or never end, and one bad file among several', () => {
  it('a FIFO is refused at once: exit 2, one line naming it', async () => {
    const fifo = join(scratch, 'capture.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await runCli(['parse', fifo], { timeoutMs: 20_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`aifabric: ${fifo}: cannot read (a FIFO, not a regular file)\n`);
  });

  it('/dev/zero is refused, not read without bound; so is a folder', async () => {
    const zero = await runCli(['parse', '/dev/zero'], { timeoutMs: 20_000 });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe('aifabric: /dev/zero: cannot read (a device, not a regular file)\n');
    const folder = await runCli(['parse', '--kind', 'sysctl', scratch]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`aifabric: ${scratch}: cannot read (is a directory)\n`);
  });

  it('one bad file of three: the good ones are printed, the bad one named on stderr, exit 2', async () => {
    const good = [RDMA_LINK_PASTE, SHOW_GIDS_PASTE];
    const bad = join(scratch, 'notes.txt');
    writeFileSync(bad, 'remember to reboot node07\n');
    const result = await runCli(['parse', good[0]!, bad, good[1]!]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      `${good[0]!}: rdma-link, 2 links\n  warning line 3: "......." marks lines left out of the paste: their facts are missing\n${good[1]!}: show-gids, 5 entries\n`,
    );
    expect(result.stderr.split('\n')[0]).toBe(
      `aifabric: ${bad}: not a recognised tool output (line 1: "remember to reboot node07"); known kinds: ${result.stderr.split('known kinds: ')[1]?.split('\n')[0] ?? ''}`,
    );
    const json = await runCli(['parse', '--json', good[0]!, bad]);
    expect(json.code).toBe(2);
    const envelope = JSON.parse(json.stdout);
    expect(envelope.metrics.files).toHaveLength(1);
    expect(envelope.metrics.failed).toEqual([
      { file: bad, message: expect.stringContaining(`${bad}: not a recognised tool output`) },
    ]);
  });
});
