/** Tar archives built byte by byte for the tar and trace-file tests (ustar headers with checksums, GNU long names). */
function header(name: string, size: number, type = '0'): Buffer {
  const block = Buffer.alloc(512);
  block.write(name.slice(0, 100), 0, 'utf8');
  block.write('0000644\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  block.write('00000000000\0', 136);
  block.write(type, 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

function member(name: string, data: Buffer, type = '0'): Buffer {
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header(name, data.length, type), data, padding]);
}

/** A tar as `tar cf` writes it: a directory, files, a GNU long name, two zero blocks. */
export function buildTar(files: { name: string; data: Buffer }[]): Buffer {
  const parts: Buffer[] = [header('dir/', 0, '5')];
  for (const file of files) {
    if (Buffer.byteLength(file.name) > 100)
      parts.push(member('././@LongLink', Buffer.from(`${file.name}\0`), 'L'));
    parts.push(member(file.name, file.data));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
