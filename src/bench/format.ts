/**
 * The nccl-tests text layout, field for field (nccl-tests v2.19 src/util.cu writeDeviceReport,
 * writeResultHeader, writeBenchmarkLinePreamble/Body, writeResultFooter), so that scripts and
 * parsers written for all_reduce_perf read our output unchanged. Our own first line says who
 * produced it; the "device" of each rank line is its TCP transport.
 */
import { allReduceSchedule, HALVING_DOUBLING_MAX_BYTES, hostsCrowded, perfName } from './collective.js';
import { isPowerOfTwo } from './halving-doubling.js';
import { LATER_CELL_SHARE, SETTLE_ITERS } from './settle.js';
import type { BenchCell, BenchParams, BenchRow, RankInfo } from './types.js';

const pad = (text: string | number, width: number): string => String(text).padStart(width);

/** C's %g for the counts we print (integers and plain decimals, 6 significant digits). */
export function formatG(value: number): string {
  if (value === 0) return '0';
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  if (exponent < -4 || exponent >= 6) {
    const [mantissa = '0', exp = '0'] = value.toExponential(5).split('e');
    const trimmed = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
    const expNumber = Number(exp);
    return `${trimmed}e${expNumber < 0 ? '-' : '+'}${String(Math.abs(expNumber)).padStart(2, '0')}`;
  }
  const fixed = value.toFixed(Math.max(0, 5 - exponent));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** nccl-tests getFloatStr: as many decimals as fit in `width`, then fewer, then exponent form. */
export function floatStr(value: number, width: number): string {
  let power = 0;
  for (let v = 1; value >= v && power < 30; v *= 10) power++;
  if (power < width - 2) return pad(value.toFixed(2), width);
  if (power < width - 1) return pad(value.toFixed(1), width);
  if (power < width + 1) return pad(value.toFixed(0), width);
  const [mantissa = '0', exp = '0'] = value.toExponential(1).split('e');
  const expNumber = Number(exp);
  return pad(
    `${mantissa}e${expNumber < 0 ? '-' : '+'}${String(Math.abs(expNumber)).padStart(2, '0')}`,
    width,
  );
}

export interface HeaderInfo {
  params: BenchParams;
  peers: RankInfo[];
  version: string;
  launcher: string;
  ifname?: string;
}

/** How long each size settles before it is timed (settle.ts), as the first header line says it. */
function settleNote(settleMs: number): string {
  return settleMs > 0
    ? `, settle ${settleMs / 1000} s before the first size and ${(settleMs * LATER_CELL_SHARE) / 1000} s before the others (at most ${SETTLE_ITERS} untimed iterations each)`
    : ', no settling';
}

/** Which schedule all_reduce runs at which sizes (collective.ts allReduceSchedule), for the first header line. */
function allReduceNote(params: BenchParams, peers: readonly RankInfo[]): string {
  if (params.op !== 'all_reduce' || peers.length < 2) return '';
  const algo = params.algo ?? 'auto';
  if (algo !== 'auto') return `, all_reduce by ${algo}`;
  const nranks = peers.length;
  const crowded = hostsCrowded(peers);
  if (allReduceSchedule(algo, nranks, 0, crowded) === 'ring') return ', all_reduce by ring';
  const why = isPowerOfTwo(nranks) ? '' : ', folded to a power of two since a host has more ranks than cores';
  return `, all_reduce by halving-doubling up to ${HALVING_DOUBLING_MAX_BYTES >> 20} MiB${why}, the ring above`;
}

export function formatHeader(info: HeaderInfo): string {
  const { params, peers } = info;
  const name = perfName(params.op);
  const lines = [
    `# aifabric ${info.version} bench tcp: kernel TCP sockets, nccl-tests 2.19 output layout (launcher: ${info.launcher})${settleNote(params.settleMs ?? 0)}${allReduceNote(params, peers)}`,
    `# Collective test starting: ${name}`,
    `# nThread 1 nGpus 1 minBytes ${params.minBytes} maxBytes ${params.maxBytes} step: ${params.stepFactor}(factor) warmup iters: ${params.warmupIters} iters: ${params.iters} agg iters: 1 validation: ${params.check ? 1 : 0} graph: 0 unalign: 0`,
    '#',
    '# Using devices',
  ];
  const device = `tcp sockets=${params.sockets}${info.ifname ? ` ifname=${info.ifname}` : ''}`;
  const localIndex = new Map<string, number>();
  for (const peer of peers) {
    const local = localIndex.get(peer.host) ?? 0;
    localIndex.set(peer.host, local + 1);
    lines.push(
      `#  Rank ${pad(peer.rank, 2)} Group  0 Pid ${pad(peer.pid, 6)} on ${pad(peer.host, 10)} device ${pad(local, 2)} [0000:00:00] ${device} ${peer.addr}:${peer.port}`,
    );
  }
  lines.push(
    '#',
    `# ${pad('', 10)}  ${pad('', 12)}  ${pad('', 8)}  ${pad('', 6)}  ${pad('', 6)}           out-of-place                       in-place          `,
    `# ${pad('size', 10)}  ${pad('count', 12)}  ${pad('type', 8)}  ${pad('redop', 6)}  ${pad('root', 6)}  ${pad('time', 7)}  ${pad('algbw', 6)}  ${pad('busbw', 6)}  ${pad('#wrong', 6)}  ${pad('time', 7)}  ${pad('algbw', 6)}  ${pad('busbw', 6)}  ${pad('#wrong', 6)} `,
    `# ${pad('(B)', 10)}  ${pad('(elements)', 12)}  ${pad('', 8)}  ${pad('', 6)}  ${pad('', 6)}  ${pad('(us)', 7)}  ${pad('(GB/s)', 6)}  ${pad('(GB/s)', 6)}  ${pad('', 6)}  ${pad('(us)', 7)}  ${pad('(GB/s)', 6)}  ${pad('(GB/s)', 6)}  ${pad('', 6)} `,
  );
  return `${lines.join('\n')}\n`;
}

function formatCell(cell: BenchCell): string {
  // nccl-tests prints "    N/A" after busbw when not checking (util.cu writeBenchmarkLineBody).
  const wrong = cell.wrong === null ? '  N/A' : pad(formatG(cell.wrong), 6);
  return `  ${floatStr(cell.timeUs, 7)}  ${floatStr(cell.algbwGBps, 6)}  ${floatStr(cell.busbwGBps, 6)}  ${wrong}`;
}

export function formatRow(row: BenchRow): string {
  return `${pad(row.sizeBytes, 12)}  ${pad(row.count, 12)}  ${pad(row.type, 8)}  ${pad(row.redop, 6)}  ${pad(row.root, 6)}${formatCell(row.outOfPlace)}${formatCell(row.inPlace)}\n`;
}

export function formatFooter(params: BenchParams, outOfBounds: number, avgBusbwGBps: number): string {
  return [
    `# Out of bounds values : ${outOfBounds} ${outOfBounds > 0 ? 'FAILED' : 'OK'}`,
    `# Avg bus bandwidth    : ${formatG(avgBusbwGBps)} `,
    '#',
    `# Collective test concluded: ${perfName(params.op)}`,
    '',
    '',
  ].join('\n');
}
