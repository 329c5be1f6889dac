/**
 * The `#` lines of nccl-tests other than the table: run header, device list, footer. Formats from
 * NVIDIA/nccl-tests src/util.cu (writeDeviceReport, writeResultFooter) and, before 2.17, src/common.cu.
 * The `#` is optional: output pasted into Markdown loses it (NVIDIA/nccl-tests issues #37, #249).
 */
import type { NcclTestsDevice, NcclTestsHeader } from './nccl-tests-types.js';

export type CommentLine =
  | { type: 'tests-version'; version: string; headersCode: number | null; libraryCode: number | null }
  | { type: 'test-starting'; program: string }
  | { type: 'test-concluded'; program: string }
  | { type: 'run-header'; header: NcclTestsHeader }
  | { type: 'header-flag'; flag: 'blocking' | 'perIterationReport' | 'parallelInit' }
  | { type: 'device'; device: NcclTestsDevice }
  | { type: 'device-cut' }
  | { type: 'out-of-bounds'; count: number; ok: boolean }
  | { type: 'avg-busbw'; valueGBps: number; check: 'OK' | 'FAILED' | null }
  | { type: 'error'; message: string }
  | { type: 'other' };

const TESTS_VERSION = /^#?\s*nccl-tests version (\S+)(?: nccl-headers=(\d+))?(?: nccl-library=(\d+))?/;
const TEST_STARTING = /^#?\s*Collective test starting:\s*(\S+)/;
const TEST_CONCLUDED = /^#?\s*Collective test concluded:\s*(\S+)/;
// `#  Rank  0 Group  0 Pid 574691 on host device  0 [0000:06:00] NVIDIA H100` (2.13+) or without `Group` (older).
const DEVICE =
  /^#?\s*Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s*(?:\[([^\]]*)\])?\s*(.*?)\s*$/;
const OUT_OF_BOUNDS = /^#?\s*Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?/;
const AVG_BUSBW = /^#?\s*Avg bus bandwidth\s*:\s*(\S+)\s*(OK|FAILED)?/;
const ERROR = /^#\s*error:\s*(.*)$/;

function intField(text: string, pattern: RegExp): number | null {
  const match = pattern.exec(text);
  return match?.[1] === undefined ? null : Number(match[1]);
}

function parseRunHeader(text: string): NcclTestsHeader {
  const step = /step:\s*(\d+)\s*\((factor|bytes)\)/.exec(text);
  const stepValue = step?.[1] === undefined ? null : Number(step[1]);
  return {
    nThread: intField(text, /nThread\s+(\d+)/),
    nGpus: intField(text, /nGpus\s+(\d+)/),
    minBytes: intField(text, /minBytes\s+(\d+)/),
    maxBytes: intField(text, /maxBytes\s+(\d+)/),
    stepFactor: step?.[2] === 'factor' ? stepValue : null,
    stepBytes: step?.[2] === 'bytes' ? stepValue : null,
    warmupIters: intField(text, /warmup iters:\s*(\d+)/),
    iters: intField(text, /(?<!warmup |agg )iters:\s*(\d+)/),
    aggIters: intField(text, /agg iters:\s*(\d+)/),
    validation: intField(text, /validation:\s*(\d+)/),
    graph: intField(text, /graph:\s*(\d+)/),
    unalign: intField(text, /unalign:\s*(\d+)/),
    blocking: false,
    perIterationReport: false,
    parallelInit: false,
  };
}

export function classifyComment(text: string): CommentLine {
  // Cheap dispatch on the second word keeps the hot path (tables, INFO lines) free of regex scans.
  if (text.includes('nThread') && text.includes('nGpus'))
    return { type: 'run-header', header: parseRunHeader(text) };
  if (text.includes('Rank')) {
    const match = DEVICE.exec(text);
    if (match) {
      return {
        type: 'device',
        device: {
          rank: Number(match[1]),
          group: match[2] === undefined ? null : Number(match[2]),
          pid: match[3] === undefined ? null : Number(match[3]),
          host: match[4] ?? '',
          device: Number(match[5]),
          pciBusId: match[6] ?? null,
          name: match[7] ?? '',
        },
      };
    }
    if (/^#?\s*Rank\s+\d+/.test(text)) return { type: 'device-cut' };
  }
  let match = OUT_OF_BOUNDS.exec(text);
  if (match)
    return {
      type: 'out-of-bounds',
      count: Number(match[1]),
      ok: match[2] !== 'FAILED' && Number(match[1]) === 0,
    };
  match = AVG_BUSBW.exec(text);
  if (match) {
    const value = Number(match[1]);
    if (Number.isFinite(value))
      return {
        type: 'avg-busbw',
        valueGBps: value,
        check: (match[2] as 'OK' | 'FAILED' | undefined) ?? null,
      };
  }
  match = TESTS_VERSION.exec(text);
  if (match) {
    return {
      type: 'tests-version',
      version: match[1] ?? '',
      headersCode: match[2] === undefined ? null : Number(match[2]),
      libraryCode: match[3] === undefined ? null : Number(match[3]),
    };
  }
  match = TEST_STARTING.exec(text);
  if (match) return { type: 'test-starting', program: match[1] ?? '' };
  match = TEST_CONCLUDED.exec(text);
  if (match) return { type: 'test-concluded', program: match[1] ?? '' };
  match = ERROR.exec(text);
  if (match) return { type: 'error', message: match[1] ?? '' };
  if (/^#?\s*Blocking Enabled/.test(text)) return { type: 'header-flag', flag: 'blocking' };
  if (/^#?\s*Per-Iteration Report/.test(text)) return { type: 'header-flag', flag: 'perIterationReport' };
  if (/^#?\s*Parallel Init Enabled/.test(text)) return { type: 'header-flag', flag: 'parallelInit' };
  return { type: 'other' };
}
