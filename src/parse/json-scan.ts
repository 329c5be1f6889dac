/**
 * A byte-level scanner for one big JSON object fed in chunks, built for Chrome/Kineto traces that
 * are larger than a JS string can hold: it walks the top-level object, hands over the raw bytes of
 * the top-level values it is asked for (`distributedInfo`, `deviceProperties`), and the raw bytes
 * of each object element of the `traceEvents` array, one at a time. Nothing else is kept, so
 * memory stays at one chunk plus one event. It tracks strings, escapes and nesting only; the
 * bytes it hands over are for JSON.parse, which validates them.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const enum State {
  Before,
  Key,
  KeyString,
  Colon,
  ValueStart,
  Value,
  Events,
  Event,
  After,
  Dead,
}

export interface JsonScanSink {
  /** The raw bytes of a top-level value whose key was asked for. */
  onTopValue(key: string, bytes: Buffer): void;
  /** The raw bytes of one object element of the top-level `traceEvents` array. */
  onEvent(bytes: Buffer): void;
}

export interface JsonScanEnd {
  /** The input began with `{` (after white space and a BOM). */
  sawObject: boolean;
  /** A top-level `traceEvents` array was entered. */
  sawEvents: boolean;
  /** The top-level object was closed; false for a cut-off file. */
  complete: boolean;
  /** Where the structure stopped making sense (a byte offset), or null. */
  malformedAt: number | null;
  /** Elements of traceEvents that were not objects, and events over the capture cap, skipped. */
  skippedElements: number;
  bytes: number;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Largest single event or top-level value handed over; a bigger one is skipped (and counted). */
const DEFAULT_MAX_CAPTURE_BYTES = 256 * 1024 * 1024;

export class TraceJsonScanner {
  private state = State.Before;
  private key = '';
  private keyBytes: number[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Where a Value state returns when its value ends: the top-level object or the events array. */
  private valueReturn: State.Key | State.Events = State.Key;
  private valueConsumed = false;
  private capturing = false;
  private captureParts: Buffer[] = [];
  private captureLength = 0;
  private captureOversize = false;
  private offset = 0;
  private sawObject = false;
  private sawEvents = false;
  private malformedAt: number | null = null;
  private skippedElements = 0;

  constructor(
    private readonly keys: ReadonlySet<string>,
    private readonly sink: JsonScanSink,
    private readonly maxCaptureBytes = DEFAULT_MAX_CAPTURE_BYTES,
  ) {}

  /** True once the scanner has nothing more to read (the object closed, or it is not one). */
  get done(): boolean {
    return this.state === State.After || this.state === State.Dead;
  }

  push(chunk: Buffer): void {
    const n = chunk.length;
    let captureStart = this.capturing ? 0 : -1;
    let i = 0;
    while (i < n && !this.done) {
      const c = chunk[i]!;
      switch (this.state) {
        case State.Before:
          if (c === OPEN_BRACE) {
            this.sawObject = true;
            this.state = State.Key;
          } else if (!(isSpace(c) || (this.offset + i < 3 && (c === 0xef || c === 0xbb || c === 0xbf)))) {
            this.fail(i);
          }
          i++;
          break;
        case State.Key:
          if (c === QUOTE) {
            this.keyBytes = [];
            this.escaped = false;
            this.state = State.KeyString;
          } else if (c === CLOSE_BRACE) {
            this.state = State.After;
          } else if (!(isSpace(c) || c === COMMA)) {
            this.fail(i);
          }
          i++;
          break;
        case State.KeyString:
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) {
            this.key = Buffer.from(this.keyBytes).toString('utf8');
            this.state = State.Colon;
            i++;
            break;
          }
          if (this.keyBytes.length < 256) this.keyBytes.push(c);
          i++;
          break;
        case State.Colon:
          if (c === COLON) this.state = State.ValueStart;
          else if (!isSpace(c)) this.fail(i);
          i++;
          break;
        case State.ValueStart:
          if (isSpace(c)) {
            i++;
          } else if (c === OPEN_BRACKET && this.key === 'traceEvents') {
            this.sawEvents = true;
            this.state = State.Events;
            i++;
          } else {
            this.beginValue(State.Key, this.keys.has(this.key));
            captureStart = this.capturing ? i : -1;
          }
          break;
        case State.Events:
          if (c === OPEN_BRACE) {
            this.depth = 1;
            this.inString = false;
            this.escaped = false;
            this.startCapture();
            captureStart = i;
            this.state = State.Event;
          } else if (c === CLOSE_BRACKET) {
            this.state = State.Key;
          } else if (!(isSpace(c) || c === COMMA)) {
            this.skippedElements++;
            this.beginValue(State.Events, false);
            break;
          }
          i++;
          break;
        case State.Event: {
          // The hot loop: most of a trace's bytes are inside events.
          let depth = this.depth;
          let inString = this.inString;
          let escaped = this.escaped;
          let j = i;
          for (; j < n; j++) {
            const b = chunk[j]!;
            if (inString) {
              if (escaped) escaped = false;
              else if (b === BACKSLASH) escaped = true;
              else if (b === QUOTE) inString = false;
            } else if (b === QUOTE) inString = true;
            else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
            else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
              depth--;
              if (depth === 0) break;
            }
          }
          this.depth = depth;
          this.inString = inString;
          this.escaped = escaped;
          if (j < n) {
            const bytes = this.endCapture(chunk, captureStart, j + 1);
            captureStart = -1;
            this.state = State.Events;
            if (bytes) this.sink.onEvent(bytes);
            else this.skippedElements++;
            i = j + 1;
          } else {
            i = n;
          }
          break;
        }
        case State.Value: {
          const ended = this.stepValue(c);
          if (ended === 'before' && !this.valueConsumed) {
            // A value that ends before its first byte (`[}`, `:,`): the structure is broken.
            this.fail(i);
          } else if (ended === 'before') {
            // A scalar ends at the byte after it, which belongs to the enclosing container.
            this.finishValue(chunk, captureStart, i);
            captureStart = -1;
          } else {
            i++;
            this.valueConsumed = true;
            if (ended === 'after') {
              this.finishValue(chunk, captureStart, i);
              captureStart = -1;
            }
          }
          break;
        }
        default:
          i = n;
      }
    }
    if (this.capturing && captureStart >= 0 && captureStart < n)
      this.keepPart(chunk.subarray(captureStart, n));
    this.offset += n;
  }

  finish(): JsonScanEnd {
    return {
      sawObject: this.sawObject,
      sawEvents: this.sawEvents,
      complete: this.state === State.After,
      malformedAt: this.malformedAt,
      skippedElements: this.skippedElements,
      bytes: this.offset,
    };
  }

  private fail(index: number): void {
    this.malformedAt = this.offset + index;
    this.state = State.Dead;
  }

  private beginValue(returnTo: State.Key | State.Events, capture: boolean): void {
    this.valueReturn = returnTo;
    this.valueConsumed = false;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.state = State.Value;
    if (capture) this.startCapture();
  }

  /** One byte of a value: 'before' when the value ended just before it, 'after' when it ends with it. */
  private stepValue(c: number): 'before' | 'after' | null {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) {
        this.inString = false;
        if (this.depth === 0) return 'after';
      }
      return null;
    }
    if (c === QUOTE) {
      this.inString = true;
      return null;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      this.depth++;
      return null;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (this.depth === 0) return 'before';
      this.depth--;
      return this.depth === 0 ? 'after' : null;
    }
    if (this.depth === 0 && (c === COMMA || isSpace(c))) return 'before';
    return null;
  }

  private finishValue(chunk: Buffer, captureStart: number, end: number): void {
    this.state = this.valueReturn;
    if (!this.capturing) return;
    const bytes = this.endCapture(chunk, captureStart, end);
    if (bytes && this.valueReturn === State.Key) this.sink.onTopValue(this.key, bytes);
  }

  private startCapture(): void {
    this.capturing = true;
    this.captureParts = [];
    this.captureLength = 0;
    this.captureOversize = false;
  }

  private keepPart(part: Buffer): void {
    if (this.captureOversize) return;
    this.captureLength += part.length;
    if (this.captureLength > this.maxCaptureBytes) {
      this.captureOversize = true;
      this.captureParts = [];
      return;
    }
    // A copy: the chunk it came from need not outlive this read.
    this.captureParts.push(Buffer.from(part));
  }

  /** The captured bytes through `end` (exclusive) of this chunk, or null when over the cap. */
  private endCapture(chunk: Buffer, captureStart: number, end: number): Buffer | null {
    this.capturing = false;
    const last = chunk.subarray(Math.max(captureStart, 0), end);
    if (this.captureOversize || this.captureLength + last.length > this.maxCaptureBytes) {
      this.captureParts = [];
      return null;
    }
    if (this.captureParts.length === 0) return last;
    const bytes = Buffer.concat([...this.captureParts, last]);
    this.captureParts = [];
    return bytes;
  }
}
