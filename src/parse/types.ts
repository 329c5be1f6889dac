/**
 * The contract every parser of a tool's output follows: a pure function from text to typed facts
 * plus warnings with line numbers, and a cheap content sniffer for auto-detection.
 */

export interface ParseWarning {
  /** 1-based line number in the input, when the warning is about one line. */
  line?: number;
  message: string;
}

export interface ParseResult<F> {
  kind: ParserKind;
  /** The typed facts; each parser documents its own shape. */
  facts: F;
  warnings: ParseWarning[];
}

export type ParserKind =
  | 'nccl-tests'
  | 'perftest'
  | 'iperf3'
  | 'ibv-devinfo'
  | 'rdma-link'
  | 'show-gids'
  | 'nvidia-smi-topo'
  | 'sysctl'
  | 'nccl-env'
  | 'ethtool'
  | 'mlnx-qos'
  | 'sonic-config-db'
  | 'virt'
  | 'dmi'
  | 'cpuinfo'
  | 'pytorch-trace';

/** A text arriving in chunks: a file read stream, a pipe, an array of strings in tests. */
export type TextSource = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

export interface Parser<F = unknown> {
  kind: ParserKind;
  /** One-line description for `aifabric parse --help`. */
  description: string;
  /**
   * How sure we are that the text is this kind's output: 0 (surely not) to 1 (surely).
   * Must be cheap: it looks at a prefix of the text and a few patterns.
   */
  detect(text: string): number;
  /**
   * Parse the text. Never throws on malformed input of the right kind (warnings instead);
   * throws NotThisKindError when the text is not this kind's output at all.
   */
  parse(text: string): ParseResult<F>;
  /**
   * The streaming form, for kinds whose inputs run too big to hold (nccl-tests logs of hundreds of
   * MB): the same result as `parse` of the whole text, in memory bounded by the longest line.
   * Absent for kinds read whole (their inputs are small; parse-file caps their size).
   */
  parseStream?(source: TextSource): Promise<ParseResult<F>>;
}

/** Thrown by a parser given text of another kind; the CLI turns it into `FILE: not a KIND output (line N: ...)`, exit 2. */
export class NotThisKindError extends Error {
  readonly line: number;
  readonly excerpt: string;

  constructor(kind: ParserKind, line: number, excerpt: string) {
    super(`not a ${kind} output (line ${line}: ${excerpt.slice(0, 60)})`);
    this.name = 'NotThisKindError';
    this.line = line;
    this.excerpt = excerpt;
  }

  /** Refusal naming the first non-blank line of `text` (or 'empty'). */
  static atFirstLine(kind: ParserKind, text: string): NotThisKindError {
    const lines = text.split('\n');
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    return new NotThisKindError(
      kind,
      Math.max(firstIndex, 0) + 1,
      firstIndex < 0 ? 'empty' : (lines[firstIndex] ?? ''),
    );
  }
}
