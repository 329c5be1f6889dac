/**
 * The paste normaliser line by line (src/parse/paste.ts), its streaming form, and parse-file's
 * limits: what each kind of paste debris becomes, what must be left alone (nccl-tests `#` comment
 * lines, sysctl.conf comments, a tool's own indentation), and the size cap of kinds read whole.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  normalisePaste,
  normaliseStream,
  parseFileAll,
  parseNcclTests,
  planPaste,
  segmentText,
} from '../../src/parse/index.js';
import { FIXTURES_ROOT } from './tool-output-fixtures.js';

function normalised(text: string): string[] {
  return normalisePaste(text).map(segmentText);
}

describe('paste normaliser', () => {
  it('reduces prompts to `$ COMMAND`, drops bare prompts and sudo prompts, keeps the output after a sudo prompt', () => {
    expect(normalised('user@host:~$ show_gids\nDEV PORT\nuser@host:~$ \n')).toEqual([
      '$ show_gids\nDEV PORT\n',
    ]);
    expect(normalised('[root@node75 ~]# rdma link show\nlink a/1 state ACTIVE\n')).toEqual([
      '$ rdma link show\nlink a/1 state ACTIVE\n',
    ]);
    expect(normalised('# ibv_devinfo\nhca_id:\tmlx5_0\n')).toEqual(['$ ibv_devinfo\nhca_id:\tmlx5_0\n']);
    expect(normalised('[sudo] password for bob: \nkvm\n')).toEqual(['kvm\n']);
    expect(normalised('[sudo] password for bob: kvm\n')).toEqual(['kvm\n']);
  });

  it('leaves `#` comment lines of nccl-tests and conf files alone', () => {
    const text =
      '# nThread 1 nGpus 8 minBytes 8 maxBytes 128\n#  Rank  0 Group  0 Pid 1 on host\n# net.core.rmem_max = 1\nnet.core.rmem_max = 2\n';
    const [segment] = normalisePaste(text);
    expect(segmentText(segment!)).toBe(text);
    expect(segment!.changed).toBe(false);
  });

  it('drops elision lines and says so, naming the line', () => {
    const [segment] = normalisePaste('a = 1\n.......\n…\n[...]\nb = 2\n');
    expect(segmentText(segment!)).toBe('a = 1\nb = 2\n');
    expect(segment!.warnings.map((warning) => warning.line)).toEqual([2, 3, 4]);
    expect(segment!.lines.map((line) => line.line)).toEqual([1, 5]);
  });

  it('strips CRLF, ANSI colour and each launcher or log prefix', () => {
    expect(normalised('\u001b[1;31mDEV\u001b[0m PORT\r\nx\r\n')).toEqual(['DEV PORT\nx\n']);
    expect(normalised('[1,0]<stdout>:#  size\n[1,1]<stderr>:   8\n')).toEqual(['#  size\n   8\n']);
    expect(normalised(' 0: link a/1 state ACTIVE\n 1: link b/1 state DOWN\n')).toEqual([
      'link a/1 state ACTIVE\nlink b/1 state DOWN\n',
    ]);
    expect(normalised('2026-12-01T08:00:00.123456789Z kvm\n2026-12-01T08:00:01Z \n')).toEqual(['kvm\n\n']);
    expect(
      normalised('Dec 01 08:00:00 node01 bash[42]: a = 1\nDec 01 08:00:00 node01 bash[42]: b = 2\n'),
    ).toEqual(['a = 1\nb = 2\n']);
  });

  it('removes a uniform indentation of two or more spaces, not one, and not tabs', () => {
    expect(normalised('    DEV PORT\n      mlx5_0 1\n')).toEqual(['DEV PORT\n  mlx5_0 1\n']);
    expect(normalised(' #bytes\n 65536\n')).toEqual([' #bytes\n 65536\n']);
    expect(normalised('\tport:\t1\n\t\tstate:\tPORT_ACTIVE\n')).toEqual([
      '\tport:\t1\n\t\tstate:\tPORT_ACTIVE\n',
    ]);
    expect(
      planPaste(['     rx_discards_phy: 0', '     tx_discards_phy: 0'], { keepIndent: true }).outerIndent,
    ).toBe(0);
  });

  it('splits by pdsh/clush host prefix, and does not take `key: value` lines for hosts', () => {
    const segments = normalisePaste('$ pdsh -w n[1-2] systemd-detect-virt\nnode-1: kvm\nnode-2: none\n');
    expect(segments.map((segment) => [segment.host, segmentText(segment)])).toEqual([
      ['node-1', '$ pdsh -w n[1-2] systemd-detect-virt\nkvm\n'],
      ['node-2', '$ pdsh -w n[1-2] systemd-detect-virt\nnone\n'],
    ]);
    expect(
      normalisePaste('sys_vendor: QEMU\nproduct_name: Standard PC\n').map((segment) => segment.host),
    ).toEqual([null]);
    expect(
      normalisePaste('tc: 0 ratelimit: unlimited\ntc: 1 ratelimit: unlimited\nPFC configuration:\n').map(
        (segment) => segment.host,
      ),
    ).toEqual([null]);
  });

  it('drops the command line above a JSON document, which must start the text', () => {
    expect(normalised('$ rdma link show -j\n[{"ifname":"mlx5_0","port":1}]\n')).toEqual([
      '[{"ifname":"mlx5_0","port":1}]\n',
    ]);
  });

  it('a last line without a line end is marked on its segment', () => {
    expect(normalisePaste('a = 1\nb = 2')[0]!.endsWithNewline).toBe(false);
    expect(normalisePaste('a = 1\nb = 2\n')[0]!.endsWithNewline).toBe(true);
  });
});

async function collect(source: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of source) out += chunk;
  return out;
}

describe('paste normaliser over a stream', () => {
  it('normalises line by line with the plan of the head, blanking dropped lines so line numbers stay', async () => {
    const text = '$ ./all_reduce_perf -b 8\n[1,0]<stdout>:# nThread 1\n.......\n[1,0]<stdout>:   8   2\n';
    const plan = planPaste(text.split('\n'));
    const out = await collect(
      normaliseStream(
        ['$ ./all_reduce_perf -b 8\n[1,0]<std', 'out>:# nThread 1\n.......\n[1,0]<stdout>:   8   2\n'],
        plan,
      ),
    );
    expect(out).toBe('$ ./all_reduce_perf -b 8\n# nThread 1\n\n   8   2\n');
  });

  it('parse-file streams a big pasted nccl-tests log through it: the facts of the clean log', async () => {
    const log = readFileSync(
      join(FIXTURES_ROOT, 'nccl-tests', 'oci-2x8-a100-roce-all_reduce-v2.17.9.log'),
      'utf8',
    );
    // Over the 1 MiB head: NCCL INFO noise after the run (the parser skips it), indented as a Markdown paste.
    const noise = 'node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n'.repeat(20_000);
    const clean = `${log}${noise}`;
    const pasted = `user@host:~$ cat nccl.log\n${clean
      .split('\n')
      .map((line) => (line === '' ? line : `    ${line}`))
      .join('\n')}`;
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-paste-stream-'));
    writeFileSync(join(dir, 'pasted.log'), pasted);
    const [parsed] = await parseFileAll(join(dir, 'pasted.log'));
    expect(parsed!.kind).toBe('nccl-tests');
    const expected = parseNcclTests(clean).facts;
    const strip = (facts: unknown): unknown =>
      JSON.parse(
        JSON.stringify(facts, (key, value: unknown) =>
          key === 'line' || key.endsWith('Line') ? undefined : value,
        ),
      );
    expect(strip(parsed!.facts)).toEqual(strip(expected));
  });
});

describe('parse-file limits', () => {
  it('a kind read whole is capped: a larger file is refused, naming the limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-parse-cap-'));
    const path = join(dir, 'sysctl.txt');
    writeFileSync(path, 'net.core.rmem_max = 212992\n'.repeat(100_000));
    await expect(parseFileAll(path, { maxBytes: 1 << 20 })).rejects.toThrow(
      `${path}: cannot read (larger than 1 MiB, the limit for sysctl files)`,
    );
    const [parsed] = await parseFileAll(path);
    expect(parsed!.kind).toBe('sysctl');
  });
});
