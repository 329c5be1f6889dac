/**
 * perftest (ib_write_bw, ib_read_bw, ib_send_bw, ib_*_lat, ib_atomic_*): header, queue-pair
 * addresses and result rows. Tolerates the server's and client's outputs interleaved in one file
 * (two processes writing to one terminal), `-a` all-sizes tables, truncation anywhere, and
 * perftest's own warnings between rows.
 */
import {
  gidBytesToIpv6,
  readAddress,
  readGid,
  readHeaderPairs,
  readNumericRow,
  readTableHeader,
  readTitle,
  toGbps,
  type TableHeader,
} from './perftest-lines.js';
import type { PerftestFacts, PerftestHeader, PerftestRun } from './perftest-types.js';
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export type {
  PerftestVerb,
  PerftestMeasure,
  PerftestBandwidthUnit,
  PerftestHeader,
  PerftestQpAddress,
  PerftestBandwidthRow,
  PerftestLatencyRow,
  PerftestRun,
  PerftestFacts,
} from './perftest-types.js';

const DETECT_PREFIX_CHARS = 64 * 1024;

function detectPerftest(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (/^\s*#bytes\s+#iterations\s+(BW|t_)/m.test(head)) return 0.95;
  if (/^\s*(RDMA_Write|RDMA_Read|Send|Atomic)\b[\w ]*\b(BW|Latency) Test\s*$/m.test(head)) return 0.9;
  if (/^\s*Number of qps\s*:/m.test(head) && /Connection type\s*:/.test(head)) return 0.8;
  return 0;
}

function emptyHeader(): PerftestHeader {
  return {
    device: null,
    qpCount: null,
    transportType: null,
    connectionType: null,
    usingSrq: null,
    txDepth: null,
    cqModeration: null,
    postList: null,
    mtuBytes: null,
    linkType: null,
    gidIndex: null,
    maxInlineDataBytes: null,
    outstandingReads: null,
    rdmaCmQps: null,
    dataExchangeMethod: null,
    raw: {},
  };
}

function newRun(): PerftestRun {
  return {
    title: null,
    verb: null,
    measure: null,
    bidirectional: false,
    interleaved: false,
    header: emptyHeader(),
    addresses: [],
    bandwidthUnit: null,
    bandwidthRows: [],
    latencyRows: [],
    peakBwAverageGbps: null,
  };
}

function integerOrNull(value: string): number | null {
  const match = /^(\d+)/.exec(value);
  return match?.[1] ? Number(match[1]) : null;
}

function onOff(value: string): boolean | null {
  return value === 'ON' ? true : value === 'OFF' ? false : null;
}

/** Fills the typed header fields from one `Key : value` pair. */
function applyHeaderPair(header: PerftestHeader, key: string, value: string): void {
  header.raw[key] = value;
  switch (key.toLowerCase()) {
    case 'device':
      header.device = value;
      break;
    case 'number of qps':
      header.qpCount = integerOrNull(value);
      break;
    case 'transport type':
      header.transportType = value;
      break;
    case 'connection type':
      header.connectionType = value;
      break;
    case 'using srq':
      header.usingSrq = onOff(value);
      break;
    case 'tx depth':
      header.txDepth = integerOrNull(value);
      break;
    case 'cq moderation':
      header.cqModeration = integerOrNull(value);
      break;
    case 'post list':
      header.postList = integerOrNull(value);
      break;
    case 'mtu':
      header.mtuBytes = integerOrNull(value);
      break;
    case 'link type':
      header.linkType = value;
      break;
    case 'gid index':
      header.gidIndex = integerOrNull(value);
      break;
    case 'max inline data':
      header.maxInlineDataBytes = integerOrNull(value);
      break;
    case 'outstand reads':
      header.outstandingReads = integerOrNull(value);
      break;
    case 'rdma_cm qps':
      header.rdmaCmQps = onOff(value);
      break;
    case 'data ex. method':
      header.dataExchangeMethod = value;
      break;
    default:
      break;
  }
}

function rowCount(run: PerftestRun): number {
  return run.bandwidthRows.length + run.latencyRows.length;
}

class PerftestAssembler {
  readonly runs: PerftestRun[] = [];
  readonly warnings: ParseWarning[] = [];
  private run: PerftestRun | undefined;
  private table: TableHeader | undefined;
  private recognised = false;

  get sawPerftest(): boolean {
    return this.recognised;
  }

  private current(): PerftestRun {
    if (!this.run) {
      this.run = newRun();
      this.runs.push(this.run);
    }
    return this.run;
  }

  feed(line: string, lineNumber: number): void {
    const title = readTitle(line);
    if (title) {
      this.recognised = true;
      const run = this.run;
      if (run && run.title === title.title && rowCount(run) === 0) {
        // The same title again before any result: a second process's copy of the same test.
        run.interleaved = true;
        return;
      }
      this.run = newRun();
      this.runs.push(this.run);
      Object.assign(this.run, {
        title: title.title,
        verb: title.verb,
        measure: title.measure,
        bidirectional: title.bidirectional,
      });
      this.table = undefined;
      return;
    }
    const tableHeader = readTableHeader(line);
    if (tableHeader) {
      this.recognised = true;
      this.table = tableHeader;
      const run = this.current();
      if (tableHeader.measure === 'unsupported') {
        this.warnings.push({
          line: lineNumber,
          message: `result table with columns "${tableHeader.text}" is not read`,
        });
      } else {
        run.measure ??= tableHeader.measure;
        if (tableHeader.measure === 'bandwidth') run.bandwidthUnit = tableHeader.unit;
      }
      return;
    }
    if (this.table) {
      const values = readNumericRow(line);
      if (values) {
        this.addRow(values, lineNumber);
        return;
      }
    }
    const address = readAddress(line, lineNumber);
    if (address) {
      this.recognised = true;
      this.current().addresses.push(address);
      return;
    }
    const gid = readGid(line);
    if (gid !== undefined) {
      const last = this.run?.addresses.at(-1);
      if (last && last.gid === null) {
        last.gid = gid;
        last.gidIpv6 = gidBytesToIpv6(gid);
      }
      return;
    }
    if (/^\s*(WARNING:|Conflicting CPU frequency)/.test(line)) {
      this.warnings.push({ line: lineNumber, message: `perftest says: ${line.trim()}` });
      return;
    }
    if (!this.table) this.readHeaderLine(line, lineNumber);
  }

  private readHeaderLine(line: string, lineNumber: number): void {
    const pairs = readHeaderPairs(line);
    if (pairs.length === 0) return;
    const header = this.current().header;
    for (const [key, value] of pairs) {
      const previous = header.raw[key];
      if (previous === undefined) {
        applyHeaderPair(header, key, value);
        if (['device', 'number of qps', 'connection type', 'mtu', 'link type'].includes(key.toLowerCase())) {
          this.recognised = true;
        }
      } else if (previous !== value) {
        this.warnings.push({
          line: lineNumber,
          message: `"${key}" printed twice with different values (${previous}, ${value}); kept the first`,
        });
      }
    }
  }

  private addRow(values: number[], lineNumber: number): void {
    const run = this.current();
    const table = this.table;
    if (!table || table.measure === 'unsupported') return;
    const sizeBytes = values[0] ?? 0;
    if (table.measure === 'bandwidth') {
      if (values.length < 5) {
        this.warnings.push({
          line: lineNumber,
          message: `bandwidth row cut short (${values.length} of 5 fields); skipped`,
        });
        return;
      }
      const [, iterations = 0, bwPeak = 0, bwAverage = 0, msgRateMpps = 0] = values;
      const duplicate = run.bandwidthRows.find((row) => row.sizeBytes === sizeBytes);
      if (duplicate) {
        if (duplicate.bwAverage !== bwAverage || duplicate.bwPeak !== bwPeak) {
          this.warnings.push({
            line: lineNumber,
            message: `second result for ${sizeBytes} bytes differs from the first; kept the first`,
          });
        }
        return;
      }
      const unit = table.unit;
      run.bandwidthRows.push({
        sizeBytes,
        iterations,
        bwPeak,
        bwAverage,
        bwPeakGbps: toGbps(bwPeak, unit),
        bwAverageGbps: toGbps(bwAverage, unit),
        msgRateMpps,
      });
      return;
    }
    const expected = 2 + table.columns.length;
    if (values.length < expected) {
      this.warnings.push({
        line: lineNumber,
        message: `latency row cut short (${values.length} of ${expected} fields); skipped`,
      });
      return;
    }
    if (run.latencyRows.some((row) => row.sizeBytes === sizeBytes)) return;
    const cell = (column: string): number | null => {
      const index = table.columns.indexOf(column as (typeof table.columns)[number]);
      return index < 0 ? null : (values[index + 2] ?? null);
    };
    run.latencyRows.push({
      sizeBytes,
      iterations: values[1] ?? 0,
      tMinUs: cell('tMinUs') ?? 0,
      tMaxUs: cell('tMaxUs') ?? 0,
      tTypicalUs: cell('tTypicalUs') ?? 0,
      tAvgUs: cell('tAvgUs'),
      tStdevUs: cell('tStdevUs'),
      p99Us: cell('p99Us'),
      p999Us: cell('p999Us'),
    });
  }
}

export function parsePerftest(text: string): ParseResult<PerftestFacts> {
  const lines = text.split(/\r?\n/);
  const assembler = new PerftestAssembler();
  lines.forEach((line, index) => assembler.feed(line, index + 1));
  if (!assembler.sawPerftest) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('perftest', firstIndex + 1, lines[firstIndex] ?? '');
  }
  const runs = assembler.runs.filter(
    (run) =>
      run.title !== null ||
      rowCount(run) > 0 ||
      run.addresses.length > 0 ||
      Object.keys(run.header.raw).length > 0,
  );
  for (const run of runs) {
    run.peakBwAverageGbps =
      run.bandwidthRows.length === 0 ? null : Math.max(...run.bandwidthRows.map((row) => row.bwAverageGbps));
  }
  if (runs.every((run) => rowCount(run) === 0)) {
    assembler.warnings.push({ message: 'no complete result row: the output ends before the results' });
  }
  return { kind: 'perftest', facts: { runs }, warnings: assembler.warnings };
}

export const perftestParser: Parser<PerftestFacts> = {
  kind: 'perftest',
  description: 'perftest ib_{write,read,send}_{bw,lat}: header, QP addresses, bandwidth or latency rows',
  detect: detectPerftest,
  parse: parsePerftest,
};
