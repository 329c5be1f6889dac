/**
 * Splits a byte or text stream into lines without holding more than one partial line:
 * the basis of streaming parsers. UTF-8 sequences cut between chunks are decoded whole.
 */
import { StringDecoder } from 'node:string_decoder';

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  /** Feed a chunk; `onLine` gets every line completed by it, without the `\n`. */
  write(chunk: Buffer | string, onLine: (line: string) => void): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let start = 0;
    let end = text.indexOf('\n', start);
    while (end !== -1) {
      onLine(text.slice(start, end));
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    this.partial = text.slice(start);
  }

  /** Flush the last line when the input does not end with a newline. */
  end(onLine: (line: string) => void): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest !== '') onLine(rest);
  }
}
