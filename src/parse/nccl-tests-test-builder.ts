/**
 * Collects the lines of one nccl-tests run (one `*_perf` invocation) into an NcclTestsTest,
 * judging each row: complete rows in, cut or duplicated rows out with a warning.
 */
import { inferLayout, parseRow, sizeToCountRatio } from './nccl-tests-layout.js';
import { detach } from './nccl-tests-lines.js';
import type {
  NcclTestsDevice,
  NcclTestsHeader,
  NcclTestsLayout,
  NcclTestsRow,
  NcclTestsTest,
} from './nccl-tests-types.js';

/** Beyond this many warnings per test, further ones are counted, not kept: memory must not grow with the file. */
const MAX_WARNINGS_PER_TEST = 50;

export class TestBuilder {
  readonly test: NcclTestsTest;
  private readonly rowKeys = new Set<string>();
  private readonly pidByRank = new Map<number, string>();
  private sizeRatio: number | undefined;
  private suppressedWarnings = 0;
  private warnedDuplicateRank = false;
  private warnedInferredLayout = false;

  constructor(startLine: number) {
    this.test = {
      collective: null,
      collectiveSource: null,
      ncclTestsVersion: null,
      ncclHeadersCode: null,
      ncclLibraryCode: null,
      ncclVersion: null,
      header: null,
      ranks: null,
      devices: [],
      layout: null,
      rows: [],
      avgBusbwGBps: null,
      avgBusbwCheck: null,
      peakBusbwGBps: null,
      outOfBounds: null,
      errors: [],
      complete: false,
      startLine,
      endLine: startLine,
      warnings: [],
    };
  }

  /** Anything besides a version line: a new version or run header after this means a new run. */
  hasBody(): boolean {
    const t = this.test;
    return t.header !== null || t.devices.length > 0 || t.layout !== null || t.rows.length > 0 || t.complete;
  }

  warn(line: number, message: string): void {
    if (this.test.warnings.length < MAX_WARNINGS_PER_TEST)
      this.test.warnings.push({ line, message: detach(message) });
    else this.suppressedWarnings += 1;
  }

  touch(line: number): void {
    this.test.endLine = line;
  }

  setHeader(header: NcclTestsHeader, line: number): void {
    this.test.header = header;
    this.touch(line);
  }

  addDevice(device: NcclTestsDevice, line: number): void {
    this.touch(line);
    const identity = `${device.host}/${device.pid ?? ''}/${device.device}`;
    const previous = this.pidByRank.get(device.rank);
    if (previous !== undefined) {
      if (previous !== identity && !this.warnedDuplicateRank) {
        this.warnedDuplicateRank = true;
        this.warn(
          line,
          `rank ${device.rank} is listed twice by different processes: each process ran its own test (nccl-tests built without MPI and started by mpirun/srun?)`,
        );
      }
      return;
    }
    this.pidByRank.set(device.rank, identity);
    this.test.devices.push({
      ...device,
      host: detach(device.host),
      name: detach(device.name),
      pciBusId: device.pciBusId === null ? null : detach(device.pciBusId),
    });
    this.test.ranks = Math.max(this.test.ranks ?? 0, device.rank + 1);
  }

  setLayout(layout: NcclTestsLayout, line: number): void {
    this.test.layout = layout;
    this.touch(line);
  }

  /** Offer a data line; returns false when it was not a complete row (the caller may retry with a fragment). */
  tryRow(text: string, line: number): { ok: true } | { ok: false; reason: string } {
    const parsed = parseRow(text, line, this.test.layout);
    if (!parsed.ok) return parsed;
    const row = parsed.row;
    const ratio = sizeToCountRatio(row);
    if (ratio === null)
      return {
        ok: false,
        reason: `${row.sizeBytes} bytes is not a whole multiple of ${row.count} ${row.type} elements (row cut at its start?)`,
      };
    if (ratio !== undefined && this.sizeRatio !== undefined && ratio !== this.sizeRatio) {
      return {
        ok: false,
        reason: `size ${row.sizeBytes} for ${row.count} elements disagrees with the other rows (row cut at its start?)`,
      };
    }
    this.acceptRow(row, ratio, line);
    return { ok: true };
  }

  /** After the footer: swallow a row that repeats one already seen (a second process printing late). */
  tryRowIfDuplicate(text: string, line: number): boolean {
    const parsed = parseRow(text, line, this.test.layout);
    if (!parsed.ok || parsed.row.sizeBytes === 0 || !this.rowKeys.has(rowKey(parsed.row))) return false;
    this.warn(
      line,
      `duplicate row for ${parsed.row.sizeBytes} bytes ${parsed.row.type} after the footer ignored (output of two processes interleaved?)`,
    );
    return true;
  }

  /** Whether anything nccl-tests-specific was seen; a run made only of rejected lines is no run. */
  isMeaningful(): boolean {
    const t = this.test;
    return (
      this.hasBody() || t.ncclTestsVersion !== null || t.collectiveSource === 'header' || t.errors.length > 0
    );
  }

  private acceptRow(row: NcclTestsRow, ratio: number | undefined, line: number): void {
    this.touch(line);
    const key = rowKey(row);
    // Size-0 rows repeat legitimately: small sizes round down to 0 bytes per rank (alltoall, all_gather).
    if (row.sizeBytes > 0 && this.rowKeys.has(key)) {
      this.warn(
        line,
        `duplicate row for ${row.sizeBytes} bytes ${row.type} ignored (output of two processes interleaved?)`,
      );
      return;
    }
    this.rowKeys.add(key);
    row.type = detach(row.type);
    if (row.redop !== null) row.redop = detach(row.redop);
    if (row.timestamp !== undefined) row.timestamp = detach(row.timestamp);
    if (ratio !== undefined) this.sizeRatio = ratio;
    if (!this.test.layout) {
      this.test.layout = inferLayout(row);
      if (!this.warnedInferredLayout) {
        this.warnedInferredLayout = true;
        this.warn(
          line,
          'rows without a column header (output cut at its start?): layout inferred from the rows',
        );
      }
    }
    this.test.rows.push(row);
    const peak = Math.max(row.outOfPlace.busbwGBps, row.inPlace.busbwGBps);
    if (this.test.peakBusbwGBps === null || peak > this.test.peakBusbwGBps) this.test.peakBusbwGBps = peak;
  }

  setOutOfBounds(count: number, ok: boolean, line: number): void {
    const previous = this.test.outOfBounds;
    // Two processes may each print a footer; keep the worse one so a failure is never hidden.
    this.test.outOfBounds = previous
      ? { count: Math.max(previous.count, count), ok: previous.ok && ok }
      : { count, ok };
    this.test.complete = true;
    this.touch(line);
  }

  setAvgBusbw(valueGBps: number, check: 'OK' | 'FAILED' | null, line: number): void {
    if (this.test.avgBusbwGBps === null) {
      this.test.avgBusbwGBps = valueGBps;
      this.test.avgBusbwCheck = check;
    }
    this.test.complete = true;
    this.touch(line);
  }

  setCollective(collective: string, source: NcclTestsTest['collectiveSource']): void {
    if (this.test.collective === null || source === 'header') {
      this.test.collective = detach(collective);
      this.test.collectiveSource = source;
    }
  }

  conclude(line: number): void {
    this.test.complete = true;
    this.touch(line);
  }

  finish(truncatedAtEnd: boolean): NcclTestsTest {
    const t = this.test;
    if (!t.complete && (t.rows.length > 0 || t.layout !== null)) {
      this.warn(
        t.endLine,
        truncatedAtEnd
          ? 'output ends before the test footer (truncated?)'
          : 'test has no footer (interrupted, or the next run started?)',
      );
    }
    if (t.header && t.layout === null && t.rows.length === 0 && !t.complete) {
      this.warn(t.endLine, 'test header without a result table (the run failed or the output is truncated)');
    }
    if (this.suppressedWarnings > 0) {
      t.warnings.push({ line: t.endLine, message: `${this.suppressedWarnings} more warnings not shown` });
    }
    return t;
  }
}

function rowKey(row: NcclTestsRow): string {
  return `${row.sizeBytes}/${row.count}/${row.type}/${row.redop ?? ''}/${row.root ?? ''}`;
}
