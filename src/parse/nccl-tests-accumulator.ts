/**
 * The streaming core of the nccl-tests text parser: feed it lines one at a time (from a string
 * or a file stream), then call finish(). It holds only the current run's rows; finished runs go
 * to `onTest` (and are kept only when asked), so memory does not grow with noise or file size.
 */
import { classifyComment } from './nccl-tests-header.js';
import { parseColumnHeader } from './nccl-tests-layout.js';
import { classifyLine, collectiveFromCommand, collectiveFromProgram, detach } from './nccl-tests-lines.js';
import { TestBuilder } from './nccl-tests-test-builder.js';
import type { NcclTestsFacts, NcclTestsTest } from './nccl-tests-types.js';
import { NotThisKindError, type ParseResult, type ParseWarning } from './types.js';

export interface AccumulatorOptions {
  /** Called with each run as soon as it is complete (the next run starts or the input ends). */
  onTest?: (test: NcclTestsTest) => void;
  /** Keep finished runs for finish()'s result (default true). Turn off to stream with constant memory. */
  retainTests?: boolean;
}

const HASHLESS_MARKERS =
  /^(?:nThread \d|Rank\s+\d|Out of bounds values|Avg bus bandwidth|Blocking Enabled|nccl-tests version|Collective test )|\bbusbw\b/;

interface Fragment {
  text: string;
  line: number;
}

export class NcclTestsAccumulator {
  private readonly options: AccumulatorOptions;
  private readonly tests: NcclTestsTest[] = [];
  private current: TestBuilder | null = null;
  private lineNumber = 0;
  private testCount = 0;
  private rowCount = 0;
  /** A row start left on a line that an NCCL log line interrupted; the rest may follow. */
  private fragment: Fragment | null = null;
  private pendingCollective: string | null = null;
  private pendingNcclVersion: string | null = null;
  private firstContent: Fragment | null = null;

  constructor(options: AccumulatorOptions = {}) {
    this.options = options;
  }

  get linesSeen(): number {
    return this.lineNumber;
  }

  get testsSeen(): number {
    return this.testCount;
  }

  get rowsSeen(): number {
    return this.rowCount + (this.current?.test.rows.length ?? 0);
  }

  private startTest(line: number): TestBuilder {
    this.closeTest(false);
    const builder = new TestBuilder(line);
    if (this.pendingCollective) builder.setCollective(this.pendingCollective, 'command-line');
    if (this.pendingNcclVersion) builder.test.ncclVersion = this.pendingNcclVersion;
    this.pendingCollective = null;
    this.pendingNcclVersion = null;
    this.current = builder;
    return builder;
  }

  private ensureTest(line: number): TestBuilder {
    return this.current ?? this.startTest(line);
  }

  private closeTest(truncatedAtEnd: boolean): void {
    const builder = this.current;
    if (!builder) return;
    this.current = null;
    if (!builder.isMeaningful()) return;
    const test = builder.finish(truncatedAtEnd);
    this.testCount += 1;
    this.rowCount += test.rows.length;
    this.options.onTest?.(test);
    if (this.options.retainTests !== false) this.tests.push(test);
  }

  /** Feed one line, without its terminator. */
  push(raw: string): void {
    this.lineNumber += 1;
    const line = this.lineNumber;
    const cls = classifyLine(raw);
    if (cls.type !== 'blank' && !this.firstContent)
      this.firstContent = { text: detach(raw.trim().slice(0, 200)), line };
    switch (cls.type) {
      case 'blank':
        return;
      case 'nccl-log':
        if (cls.ncclVersion) this.noteNcclVersion(cls.ncclVersion);
        if (cls.fragmentBefore) this.keepFragment({ text: cls.fragmentBefore, line });
        return;
      case 'nccl-version':
        this.noteNcclVersion(cls.version);
        return;
      case 'comment':
        this.onComment(cls.text, line);
        return;
      case 'data':
        this.onData(cls.text, line);
        return;
      case 'other': {
        // nccl-tests lines whose `#` was lost (pasted into Markdown): handled as the comments they were.
        if (HASHLESS_MARKERS.test(cls.text)) {
          this.onComment(cls.text, line);
          return;
        }
        const collective = collectiveFromCommand(cls.text);
        if (collective) this.noteCommandLineCollective(collective);
        return;
      }
    }
  }

  private keepFragment(fragment: Fragment): void {
    if (this.fragment)
      this.current?.warn(this.fragment.line, `incomplete row skipped: "${this.fragment.text.slice(0, 60)}"`);
    this.fragment = fragment;
  }

  private noteNcclVersion(version: string): void {
    if (this.current && this.current.test.ncclVersion === null) this.current.test.ncclVersion = version;
    else if (!this.current || this.current.test.rows.length > 0) this.pendingNcclVersion = version;
  }

  private noteCommandLineCollective(collective: string): void {
    const current = this.current;
    if (current && !current.hasBody()) current.setCollective(collective, 'command-line');
    else if (current && current.test.rows.length === 0 && current.test.collective === null)
      current.setCollective(collective, 'command-line');
    else this.pendingCollective = collective;
  }

  private onComment(text: string, line: number): void {
    const layout = text.includes('busbw') ? parseColumnHeader(text) : null;
    if (layout) {
      const current = this.current;
      if (current && (current.test.rows.length > 0 || current.test.complete))
        this.startTest(line).setLayout(layout, line);
      else this.ensureTest(line).setLayout(layout, line);
      return;
    }
    const comment = classifyComment(text);
    switch (comment.type) {
      case 'tests-version': {
        const builder =
          this.current && !this.current.hasBody() && this.current.test.ncclTestsVersion === null
            ? this.current
            : this.startTest(line);
        builder.test.ncclTestsVersion = detach(comment.version);
        builder.test.ncclHeadersCode = comment.headersCode;
        builder.test.ncclLibraryCode = comment.libraryCode;
        builder.touch(line);
        return;
      }
      case 'test-starting': {
        const builder = this.current && !this.current.hasBody() ? this.current : this.startTest(line);
        builder.setCollective(collectiveFromProgram(comment.program), 'header');
        builder.touch(line);
        return;
      }
      case 'run-header':
        this.onRunHeader(comment.header, line);
        return;
      case 'header-flag':
        if (this.current?.test.header) this.current.test.header[comment.flag] = true;
        return;
      case 'device':
        this.ensureTest(line).addDevice(comment.device, line);
        return;
      case 'device-cut':
        this.ensureTest(line).warn(line, `device line cut short, skipped: "${text.slice(0, 60)}"`);
        return;
      case 'out-of-bounds':
        this.ensureTest(line).setOutOfBounds(comment.count, comment.ok, line);
        return;
      case 'avg-busbw':
        this.ensureTest(line).setAvgBusbw(comment.valueGBps, comment.check, line);
        return;
      case 'test-concluded': {
        const builder = this.ensureTest(line);
        builder.setCollective(collectiveFromProgram(comment.program), 'header');
        builder.conclude(line);
        return;
      }
      case 'error':
        if (comment.message.trim() !== '')
          this.ensureTest(line).test.errors.push(detach(comment.message.trim()));
        return;
      case 'other':
        return;
    }
  }

  private onRunHeader(header: NonNullable<NcclTestsTest['header']>, line: number): void {
    const current = this.current;
    if (
      current &&
      current.test.header === null &&
      current.test.rows.length === 0 &&
      !current.test.complete &&
      current.test.layout === null
    ) {
      current.setHeader(header, line);
      return;
    }
    if (
      current &&
      current.test.header &&
      current.test.rows.length === 0 &&
      !current.test.complete &&
      sameHeader(current.test.header, header)
    ) {
      current.warn(
        line,
        'the run header is printed twice: several processes each ran their own test (nccl-tests built without MPI and started by mpirun/srun?)',
      );
      return;
    }
    this.startTest(line).setHeader(header, line);
  }

  private onData(text: string, line: number): void {
    const current = this.current;
    let builder = current && !current.test.complete ? current : null;
    if (!builder) {
      builder = current ?? this.startTest(line);
      // Rows after a footer: a duplicate from another process, or a run whose header was lost.
      if (current?.test.complete) {
        const probe = builder.tryRowIfDuplicate(text, line);
        if (probe) return;
        builder = this.startTest(line);
      }
    }
    const result = builder.tryRow(text, line);
    if (result.ok) {
      if (this.fragment)
        builder.warn(this.fragment.line, `incomplete row skipped: "${this.fragment.text.slice(0, 60)}"`);
      this.fragment = null;
      return;
    }
    if (this.fragment) {
      const joined = builder.tryRow(`${this.fragment.text} ${text}`, this.fragment.line);
      this.fragment = null;
      if (joined.ok) return;
    }
    builder.warn(line, `incomplete row skipped (${result.reason}): "${text.slice(0, 60)}"`);
  }

  /** End of input. */
  finish(): NcclTestsFacts {
    if (this.fragment)
      this.current?.warn(this.fragment.line, `incomplete row skipped: "${this.fragment.text.slice(0, 60)}"`);
    this.fragment = null;
    this.closeTest(true);
    if (this.testCount === 0) {
      const first = this.firstContent;
      throw new NotThisKindError('nccl-tests', first?.line ?? 1, first ? first.text : 'empty input');
    }
    return { format: 'text', tests: this.tests };
  }
}

function sameHeader(
  a: NonNullable<NcclTestsTest['header']>,
  b: NonNullable<NcclTestsTest['header']>,
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Flatten per-test warnings into the result's list. */
export function toParseResult(
  facts: NcclTestsFacts,
  fileWarnings: ParseWarning[] = [],
): ParseResult<NcclTestsFacts> {
  const warnings = [...fileWarnings];
  for (const test of facts.tests) warnings.push(...test.warnings);
  return { kind: 'nccl-tests', facts, warnings };
}
