/**
 * nccl-tests text built from the printf formats of NVIDIA/nccl-tests src/util.cu (2.19.x):
 * writeResultHeader, writeBenchmarkLinePreamble (`%12li  %12li  %8s  %6s  %6s`), writeBenchmarkLineBody
 * (`  %7s  %6s  %6s  %6g`), writePerIterReport (`  %7s  %7s  %7s  %7s`), writeResultFooter. Used for the
 * layouts no public sample shows (-I 1, timestamps) and for the noise cases.
 */
export const HEADER_2_19 = [
  '# nccl-tests version 2.19.6 nccl-headers=22907 nccl-library=22907',
  '# Collective test starting: all_reduce_perf',
  '# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0',
  '#',
  '# Using devices',
  '#  Rank  0 Group  0 Pid   1001 on     node-a device  0 [0000:1b:00] NVIDIA H100 80GB HBM3',
  '#  Rank  1 Group  0 Pid   1002 on     node-b device  0 [0000:1b:00] NVIDIA H100 80GB HBM3',
  '#',
];

export const TABLE_HEADER_2_19 = [
  '#                                                              out-of-place                       in-place          ',
  '#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ',
  '#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ',
];

export const TABLE_HEADER_PER_ITER = [
  '#                                                                 out-of-place (+ per-iteration)                                in-place (+ per-iteration)',
  '#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv% ',
  '#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)     (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%) ',
];

const pad = (value: string | number, width: number): string => String(value).padStart(width);

/** One 2.13+ row: sizes as %12li, measurements as the strings nccl-tests would print. */
export function row213(
  sizeBytes: number,
  time: string,
  algbw: string,
  busbw: string,
  wrong: string | number = 0,
): string {
  const count = sizeBytes / 4;
  const half = `  ${pad(time, 7)}  ${pad(algbw, 6)}  ${pad(busbw, 6)}  ${pad(wrong, 6)}`;
  return `${pad(sizeBytes, 12)}  ${pad(count, 12)}  ${pad('float', 8)}  ${pad('sum', 6)}  ${pad(-1, 6)}${half}${half}`;
}

export function footer(avg: string, outOfBounds = 0): string[] {
  return [
    `# Out of bounds values : ${outOfBounds} ${outOfBounds ? 'FAILED' : 'OK'}`,
    `# Avg bus bandwidth    : ${avg} `,
    '#',
    '# Collective test concluded: all_reduce_perf',
    '#',
    '',
  ];
}

export function run(rows: string[], avg = '1.5'): string[] {
  return [...HEADER_2_19, ...TABLE_HEADER_2_19, ...rows, ...footer(avg)];
}
