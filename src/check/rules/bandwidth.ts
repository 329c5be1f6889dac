/**
 * Family `busbw`: what nccl-tests measured against what the declared fabric and shape should reach.
 * - busbw.plateau: the large-message plateau is at least 90% of the model's expectation.
 * - busbw.avg-reliance: the printed `Avg bus bandwidth` averages every size from -b up, so it
 *   says more about -b than about the fabric; a NCCL_TESTS_MIN_BW gate on it is a warning.
 * - busbw.wrong / busbw.out-of-bounds: results that failed nccl-tests' own validation.
 */
import { predictBusbwPlateauGBps } from '../../model/index.js';
import type { NcclTestsTest } from '../../parse/index.js';
import { evidenceAt } from '../evidence.js';
import { makeFinding } from '../../core/rules.js';
import { formatBytes } from '../../core/units.js';
import { collectiveOp, gpuPresetFor, plateau, runShape } from '../nccl-run.js';
import {
  capturesOf,
  type Capture,
  type CheckContext,
  type CheckFinding,
  type RuleFamily,
  type RuleOutput,
} from '../types.js';

/** A healthy cluster reaches about 90% of the modelled plateau; the model already includes protocol and NIC efficiency. */
export const BUSBW_MIN_RATIO = 0.9;
/** The printed average is noted when it is below this share of the plateau (an average over small sizes, not a judgement). */
const AVG_NOTE_RATIO = 0.9;
const SHORT_SWEEP_BYTES = 256 * 1024 ** 2;
/** Below this largest size no collective is near its plateau on current hardware: not judged. */
const MIN_JUDGED_BYTES = 64 * 1024 ** 2;

function runLabel(test: NcclTestsTest): string {
  return test.collective ? test.collective.replace(/_perf(_mpi)?$/, '') : 'nccl-tests run';
}

function checkValidation(host: string, capture: Capture<'nccl-tests'>, test: NcclTestsTest): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const label = runLabel(test);
  const wrongRows = test.rows.filter(
    (row) => (row.outOfPlace.wrong ?? 0) > 0 || (row.inPlace.wrong ?? 0) > 0,
  );
  if (wrongRows.length > 0) {
    const first = wrongRows[0]!;
    const total = wrongRows.reduce(
      (sum, row) => sum + (row.outOfPlace.wrong ?? 0) + (row.inPlace.wrong ?? 0),
      0,
    );
    findings.push(
      makeFinding('busbw.wrong', {
        family: 'busbw',
        severity: 'error',
        host,
        message: `${label}: ${total} wrong element(s) in ${wrongRows.length} row(s): the collective returned corrupted data`,
        evidence: evidenceAt(
          capture,
          first.line,
          `#wrong ${first.outOfPlace.wrong ?? 0}/${first.inPlace.wrong ?? 0} at ${first.sizeBytes} B`,
        ),
        remediation:
          'Treat the node as faulty until explained: rerun with NCCL_DEBUG=INFO, check GPU ECC (nvidia-smi -q -d ECC), NIC errors and PCIe AER in dmesg.',
        wrongElements: total,
      }),
    );
  } else if (test.rows.some((row) => row.outOfPlace.wrong !== null || row.inPlace.wrong !== null)) {
    findings.push(
      makeFinding('busbw.wrong', {
        family: 'busbw',
        severity: 'pass',
        host,
        message: `${label}: #wrong is 0 in every row`,
        evidence: evidenceAt(capture, test.startLine, `${test.rows.length} rows`),
      }),
    );
  }
  if (test.outOfBounds) {
    const ok = test.outOfBounds.ok && test.outOfBounds.count === 0;
    findings.push(
      makeFinding('busbw.out-of-bounds', {
        family: 'busbw',
        severity: ok ? 'pass' : 'error',
        host,
        message: ok
          ? `${label}: no out-of-bounds values`
          : `${label}: nccl-tests reports ${test.outOfBounds.count} out-of-bounds value(s) (${test.outOfBounds.ok ? 'OK' : 'FAILED'})`,
        evidence: evidenceAt(
          capture,
          test.endLine,
          `Out of bounds values : ${test.outOfBounds.count} ${test.outOfBounds.ok ? 'OK' : 'FAILED'}`,
        ),
        ...(ok
          ? {}
          : {
              remediation:
                'Results failed validation: look for wrong rows above it and rerun the failing size with -c 1 to find the rank.',
            }),
      }),
    );
  }
  return findings;
}

function checkAverage(host: string, capture: Capture<'nccl-tests'>, test: NcclTestsTest): CheckFinding[] {
  if (test.avgBusbwGBps === null || test.avgBusbwCheck === null) return [];
  const evidence = evidenceAt(
    capture,
    test.endLine,
    `Avg bus bandwidth : ${test.avgBusbwGBps}${test.avgBusbwCheck ? ` ${test.avgBusbwCheck}` : ''}`,
  );
  const minBytes = test.header?.minBytes;
  return [
    makeFinding('busbw.avg-reliance', {
      family: 'busbw',
      severity: 'warn',
      host,
      message: `${runLabel(test)}: NCCL_TESTS_MIN_BW gates on the average bus bandwidth (${test.avgBusbwGBps} GB/s), which averages every size from -b ${minBytes ?? '?'} B up and changes with -b alone`,
      evidence,
      remediation:
        'Judge the fabric on the large-message plateau (aifabric check does), or run the gate with -b at least 1G so the average covers only the plateau.',
    }),
  ];
}

function checkPlateau(
  context: CheckContext,
  host: string,
  capture: Capture<'nccl-tests'>,
  test: NcclTestsTest,
): RuleOutput {
  const measured = plateau(test);
  if (!measured) return { findings: [], notes: [] };
  const note = (text: string): RuleOutput => ({ findings: [], notes: [text] });
  const where = `${capture.source}:${test.startLine}`;
  const guess = collectiveOp(test, capture.source);
  const op = guess?.op ?? null;
  const shape = runShape(test);
  if (!context.fabric) {
    return note(
      `busbw.plateau: ${where}: no fabric declared (--fabric or --cluster) and none could be inferred; plateau ${measured.busbwGBps} GB/s not judged`,
    );
  }
  if (!op || !shape || test.devices.length === 0) {
    return note(
      `busbw.plateau: ${where}: ${!op ? 'the collective cannot be told from the log, its file name or its table' : 'the log lists no ranks and hosts'}; plateau not judged`,
    );
  }
  if (measured.largestSizeBytes < MIN_JUDGED_BYTES) {
    return note(
      `busbw.plateau: ${where}: the sweep stops at ${formatBytes(measured.largestSizeBytes)}, far below the plateau; rerun with -e 8G (or more) to judge it`,
    );
  }
  // The model needs the GPU (intra-node bandwidth); guessing one for a GPU it does not know would judge NVLink numbers that do not apply.
  const gpu = context.cluster?.gpu ?? gpuPresetFor(shape.gpuName);
  if (!gpu) {
    return note(
      `busbw.plateau: ${where}: no GPU preset for "${shape.gpuName ?? 'unknown GPU'}"; give --cluster with a gpu to judge the plateau (${measured.busbwGBps} GB/s)`,
    );
  }
  // One NIC per GPU unless the cluster file says otherwise, as on DGX/HGX systems.
  const nicsPerNode = context.cluster?.nicsPerNode ?? shape.gpusPerNode;
  const expected = predictBusbwPlateauGBps({
    op,
    nodes: shape.nodes,
    gpusPerNode: shape.gpusPerNode,
    nicsPerNode,
    fabric: context.fabric,
    gpu,
  });
  if (!(expected > 0)) {
    return note(
      `busbw.plateau: ${where}: the model gives no bus bandwidth for ${op} on ${shape.nodes}x${shape.gpusPerNode}; not judged`,
    );
  }
  const ratio = measured.busbwGBps / expected;
  const lastRow = measured.rows[measured.rows.length - 1]!;
  const shortSweep =
    measured.largestSizeBytes < SHORT_SWEEP_BYTES
      ? ` (the sweep stops at ${formatBytes(measured.largestSizeBytes)}, short of the plateau)`
      : '';
  const shapeText = `${shape.nodes} node(s) x ${shape.gpusPerNode} GPU(s), ${nicsPerNode} NIC(s) per node, ${context.fabric.id}`;
  const ok = ratio >= BUSBW_MIN_RATIO;
  // One node never touches the network: its shortfall is about NVLink or PCIe (or the model's GPU figures), so it warns.
  const severity = ok ? 'pass' : shape.nodes === 1 ? 'warn' : 'error';
  const singleNode =
    shape.nodes === 1 && !ok ? '; a single-node run measures NVLink/PCIe, not the fabric' : '';
  // The printed average mixes in every small size from -b up; say so where it differs, never judge on it.
  const avgNote =
    test.avgBusbwGBps !== null && test.avgBusbwGBps < AVG_NOTE_RATIO * measured.busbwGBps
      ? `; the printed Avg bus bandwidth ${test.avgBusbwGBps} GB/s reflects -b ${test.header?.minBytes ?? '?'} B, not the fabric`
      : '';
  const finding = makeFinding('busbw.plateau', {
    family: 'busbw',
    severity,
    host,
    message: `${op}${guess?.basis === 'log' ? '' : ` (collective read from the ${guess?.basis})`}: plateau busbw ${measured.busbwGBps.toFixed(2)} GB/s is ${(ratio * 100).toFixed(1)}% of the ${expected.toFixed(2)} GB/s expected on ${shapeText}${ok ? '' : ` (below ${BUSBW_MIN_RATIO * 100}%)`}${shortSweep}${singleNode}${avgNote}`,
    evidence: evidenceAt(
      capture,
      lastRow.line,
      `busbw ${Math.max(lastRow.outOfPlace.busbwGBps, lastRow.inPlace.busbwGBps)} GB/s at ${lastRow.sizeBytes} B`,
    ),
    ...(ok
      ? {}
      : {
          remediation:
            shape.nodes === 1
              ? 'Check nvidia-smi topo -m (NVLink present), nvidia-smi nvlink -s, GPU clocks and PCIe link width; compare with a known-good node of the same model.'
              : 'Find the slow part: run the rdma and gdr checks on every node, ib_write_bw between node pairs, and the same test on each node alone to isolate a straggler.',
        }),
    measuredBusbwGBps: measured.busbwGBps,
    expectedBusbwGBps: expected,
    ratio,
  });
  return { findings: [finding], notes: [] };
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  const notes: string[] = [];
  for (const host of context.hosts) {
    for (const capture of capturesOf(host, 'nccl-tests')) {
      for (const test of capture.facts.tests) {
        if (test.rows.length === 0) continue;
        const plateauOutput = checkPlateau(context, host.host, capture, test);
        findings.push(
          ...checkValidation(host.host, capture, test),
          ...plateauOutput.findings,
          ...checkAverage(host.host, capture, test),
        );
        notes.push(...plateauOutput.notes);
      }
    }
  }
  return { findings, notes };
}

export const bandwidthRules: RuleFamily = { id: 'busbw', title: 'Bus bandwidth (nccl-tests)', run };
