/**
 * A streaming reader of tar archives (POSIX ustar and GNU tar, as `tar czf` writes them): 512-byte
 * headers, each member's bytes padded to 512, two zero blocks at the end (POSIX.1-1988 ustar,
 * https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html#tag_20_92_13_06). Members
 * come one at a time with their bytes as chunks, never whole, so a tarball of GB-sized traces
 * reads in flat memory. GNU long names (type L) and pax path records (type x) are honoured;
 * other special entries are skipped.
 */

export interface TarMember {
  name: string;
  size: number;
  /** '0' (or NUL) for a regular file; members of other types are skipped by `tarMembers`. */
  type: string;
  /** The member's bytes; consume them before asking for the next member (the rest is skipped). */
  body: AsyncIterable<Buffer>;
}

export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

const BLOCK = 512;

/** Pulls exact byte counts out of a chunked source. */
class ByteReader {
  private pending: Buffer = Buffer.alloc(0);
  private readonly iterator: AsyncIterator<Buffer | string>;
  private ended = false;

  constructor(source: AsyncIterable<Buffer | string>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    return true;
  }

  /** Exactly n bytes, or fewer at the end of the source. */
  async read(n: number): Promise<Buffer> {
    while (this.pending.length < n) if (!(await this.fill())) break;
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(out.length);
    return out;
  }

  /** Up to n bytes as they arrive (at least one unless the source ended). */
  async readSome(n: number): Promise<Buffer> {
    if (this.pending.length === 0 && !(await this.fill())) return Buffer.alloc(0);
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(out.length);
    return out;
  }
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const nul = raw.indexOf(0);
  return raw.toString('utf8', 0, nul === -1 ? raw.length : nul);
}

/** Octal size, or GNU base-256 for members of 8 GiB and more. */
function sizeOf(header: Buffer): number {
  if ((header[124]! & 0x80) !== 0) {
    let size = 0;
    for (let i = 125; i < 136; i++) size = size * 256 + header[i]!;
    return size;
  }
  const text = field(header, 124, 12).trim();
  if (!/^[0-7]*$/.test(text)) throw new TarFormatError(`bad size field "${text}"`);
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumOk(header: Buffer): boolean {
  const stored = field(header, 148, 8).trim();
  if (!/^[0-7]+$/.test(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum === parseInt(stored, 8);
}

/** True when the first 512 bytes are a tar header (ustar magic, or a valid checksum). */
export function looksLikeTar(head: Buffer): boolean {
  if (head.length < BLOCK) return false;
  const magic = head.toString('latin1', 257, 262);
  return magic === 'ustar' || checksumOk(head.subarray(0, BLOCK));
}

function paxPath(records: Buffer): string | null {
  const text = records.toString('utf8');
  const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(text);
  return match ? match[1]! : null;
}

/** The regular-file members of a tar stream, in order. */
export async function* tarMembers(source: AsyncIterable<Buffer | string>): AsyncGenerator<TarMember> {
  const reader = new ByteReader(source);
  let longName: string | null = null;
  for (;;) {
    const header = await reader.read(BLOCK);
    if (header.length === 0) return;
    if (header.length < BLOCK) throw new TarFormatError('archive ends inside a header');
    if (header.every((byte) => byte === 0)) return;
    if (!checksumOk(header)) throw new TarFormatError('bad header checksum');
    const size = sizeOf(header);
    const type = field(header, 156, 1) || '0';
    const prefix = header.toString('latin1', 257, 262) === 'ustar' ? field(header, 345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = null;
    let remaining = size;
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'L' || type === 'x') {
      const data = await reader.read(size);
      if (data.length < size) throw new TarFormatError('archive ends inside a member');
      await reader.read(padding);
      longName = type === 'L' ? data.toString('utf8').replace(/\0+$/, '') : paxPath(data);
      continue;
    }
    const body = async function* (): AsyncGenerator<Buffer> {
      while (remaining > 0) {
        const chunk = await reader.readSome(Math.min(remaining, 1 << 20));
        if (chunk.length === 0) throw new TarFormatError('archive ends inside a member');
        remaining -= chunk.length;
        yield chunk;
      }
    };
    if (type === '0' || type === '7') yield { name, size, type, body: body() };
    // Whatever the consumer left unread (or a non-file member), then the padding.
    while (remaining > 0) {
      const chunk = await reader.readSome(Math.min(remaining, 1 << 20));
      if (chunk.length === 0) throw new TarFormatError('archive ends inside a member');
      remaining -= chunk.length;
    }
    await reader.read(padding);
  }
}
