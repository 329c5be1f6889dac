/**
 * The streaming tar reader on archives built here byte by byte (ustar headers with checksums, a
 * GNU long name, a directory, padding), read whole and in tiny chunks, and cut short.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { looksLikeTar, tarMembers, TarFormatError } from '../../src/parse/tar.js';
import { buildTar } from './tar-fixture.js';

async function read(bytes: Buffer, chunk: number): Promise<{ name: string; text: string }[]> {
  const chunks = Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) =>
    bytes.subarray(i * chunk, (i + 1) * chunk),
  );
  const out: { name: string; text: string }[] = [];
  for await (const entry of tarMembers(Readable.from(chunks))) {
    const parts: Buffer[] = [];
    for await (const part of entry.body) parts.push(part);
    out.push({ name: entry.name, text: Buffer.concat(parts).toString() });
  }
  return out;
}

describe('tar reader', () => {
  const longName = `dir/${'x'.repeat(120)}/rank_3.json`;
  const files = [
    { name: 'dir/a.json', data: Buffer.from('{"traceEvents": []}') },
    { name: 'dir/empty.json', data: Buffer.alloc(0) },
    { name: longName, data: Buffer.from('y'.repeat(1500)) },
  ];
  const tar = buildTar(files);

  it('reads every regular member with its bytes, whatever the chunking', async () => {
    const expected = files.map((file) => ({ name: file.name, text: file.data.toString() }));
    expect(looksLikeTar(tar)).toBe(true);
    for (const size of [1, 7, 511, 512, 513, 1 << 20]) expect(await read(tar, size)).toEqual(expected);
  });

  it('skips a member the consumer does not read', async () => {
    const names: string[] = [];
    for await (const entry of tarMembers(Readable.from([tar]))) names.push(entry.name);
    expect(names).toEqual(files.map((file) => file.name));
  });

  it('refuses an archive cut inside a member and a damaged header', async () => {
    await expect(read(tar.subarray(0, 1024 + 700), 100)).rejects.toBeInstanceOf(TarFormatError);
    const damaged = Buffer.from(tar);
    damaged[600] = damaged[600]! ^ 0xff;
    await expect(read(damaged, 4096)).rejects.toThrow(/checksum/);
  });

  it('does not take JSON or gzip for a tar', () => {
    expect(looksLikeTar(Buffer.from(`{"traceEvents": [${' '.repeat(600)}]}`))).toBe(false);
    expect(looksLikeTar(gzipSync(tar))).toBe(false);
  });
});
