/**
 * Facts no real run can print: a negative size, time, bandwidth or `#wrong` in an nccl-tests row (a
 * hand-edited or corrupted log). Each test with such rows gets one `busbw.range` error naming the
 * first row, and the rules see the test without them, so no plateau or straggler is judged on it.
 */
import type { NcclTestsMeasurement, NcclTestsRow, NcclTestsTest } from '../../parse/index.js';
import { makeFinding } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import type { Capture, CheckFinding, HostCaptures } from '../types.js';

function measurementProblem(half: NcclTestsMeasurement, which: string): string | null {
  if (half.timeUs < 0) return `${which} time ${half.timeUs} us`;
  if (half.algbwGBps < 0) return `${which} algbw ${half.algbwGBps} GB/s`;
  if (half.busbwGBps < 0) return `${which} busbw ${half.busbwGBps} GB/s`;
  if (half.wrong !== null && half.wrong < 0) return `${which} #wrong ${half.wrong}`;
  return null;
}

/** What is out of range in the row, or null when every value could have been measured. */
export function rowRangeProblem(row: NcclTestsRow): string | null {
  if (row.sizeBytes < 0) return `size ${row.sizeBytes} B`;
  if (row.count < 0) return `count ${row.count}`;
  return measurementProblem(row.outOfPlace, 'out-of-place') ?? measurementProblem(row.inPlace, 'in-place');
}

/** The test without its out-of-range rows, and the finding that says so (none when every row is in range). */
function screenTest(
  host: string,
  capture: Capture<'nccl-tests'>,
  test: NcclTestsTest,
): { test: NcclTestsTest; findings: CheckFinding[] } {
  const bad = test.rows
    .map((row) => ({ row, problem: rowRangeProblem(row) }))
    .filter((entry): entry is { row: NcclTestsRow; problem: string } => entry.problem !== null);
  const badAverage = test.avgBusbwGBps !== null && test.avgBusbwGBps < 0;
  if (bad.length === 0 && !badAverage) return { test, findings: [] };
  const first = bad[0];
  const label = test.collective ? test.collective.replace(/_perf(_mpi)?$/, '') : 'nccl-tests run';
  const finding = makeFinding('busbw.range', {
    family: 'busbw',
    severity: 'error',
    host,
    message: first
      ? `${label}: ${bad.length} row(s) hold values no measurement gives (first: ${first.problem} at ${first.row.sizeBytes} B): the log is corrupted or edited; those rows are not judged`
      : `${label}: the average bus bandwidth ${test.avgBusbwGBps} GB/s is negative: the log is corrupted or edited`,
    evidence: first
      ? evidenceAt(capture, first.row.line, first.problem)
      : evidenceAt(capture, test.endLine, `Avg bus bandwidth : ${test.avgBusbwGBps}`),
    remediation:
      'Use the log exactly as nccl-tests wrote it (rerun the test if it is lost); sizes, times and bandwidths are never negative.',
  });
  const rows = test.rows.filter((row) => rowRangeProblem(row) === null);
  const peak =
    rows.length === 0
      ? null
      : Math.max(...rows.map((row) => Math.max(row.outOfPlace.busbwGBps, row.inPlace.busbwGBps)));
  return {
    test: { ...test, rows, peakBusbwGBps: peak, avgBusbwGBps: badAverage ? null : test.avgBusbwGBps },
    findings: [finding],
  };
}

/** The hosts with out-of-range nccl-tests rows removed, and one error finding per test that had any. */
export function screenRanges(hosts: HostCaptures[]): { hosts: HostCaptures[]; findings: CheckFinding[] } {
  const findings: CheckFinding[] = [];
  const screened = hosts.map((host) => ({
    ...host,
    captures: host.captures.map((capture): Capture => {
      if (capture.kind !== 'nccl-tests') return capture;
      const nccl = capture as Capture<'nccl-tests'>;
      const tests = nccl.facts.tests.map((test) => {
        const screened = screenTest(host.host, nccl, test);
        findings.push(...screened.findings);
        return screened.test;
      });
      return tests.every((test, index) => test === nccl.facts.tests[index])
        ? capture
        : { ...nccl, facts: { ...nccl.facts, tests } };
    }),
  }));
  return { hosts: screened, findings };
}
