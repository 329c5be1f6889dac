/**
 * `nvidia-smi topo -m`: the GPU/NIC connection matrix, the affinity columns and the legends.
 * Two layouts are in use: drivers before ~R470 name NIC columns after the device (`mlx5_0`),
 * later ones print `NIC0..` and a `NIC Legend:` mapping them to devices. Columns are separated by
 * tabs or by spaces depending on how the output was copied, so cells are read as tokens.
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export interface TopoGpu {
  name: string;
  index: number;
  cpuAffinity: string | null;
  numaAffinity: string | null;
  gpuNumaId: string | null;
}

export interface TopoNic {
  /** The column label: `NIC0` (new layout) or the device name itself (old layout). */
  name: string;
  /** The RDMA device (`mlx5_0`) from the NIC legend or the old layout's label; null when unknown. */
  device: string | null;
}

export interface TopoNearestNic {
  gpu: string;
  /** null when the output shows no NIC for this GPU. */
  nic: string | null;
  device: string | null;
  /** The connection type of that pair: PIX, PXB, PHB, NODE or SYS. */
  link: string | null;
  /** Other NICs at the same distance. */
  alsoAtSameDistance: string[];
}

export interface NvidiaSmiTopoFacts {
  layout: 'nic-legend' | 'device-columns' | 'gpu-only';
  gpus: TopoGpu[];
  nics: TopoNic[];
  /** matrix[row][column] = connection type as printed (X, NV12, PIX, PXB, PHB, NODE, SYS, SOC...). */
  matrix: Record<string, Record<string, string>>;
  nearestNic: TopoNearestNic[];
  /** The connection legend: code to description, as printed. */
  legend: Record<string, string>;
}

const DETECT_PREFIX_CHARS = 64 * 1024;
// Closest first, per the legend nvidia-smi prints; SOC is the pre-2017 name of SYS.
const PCIE_DISTANCE = ['PIX', 'PXB', 'PHB', 'NODE', 'SYS', 'SOC'];
const CELL = /^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC|PSB|N\/A)$/;
const TAIL_COLUMNS = ['CPU Affinity', 'NUMA Affinity', 'GPU NUMA ID'] as const;

function detectNvidiaSmiTopo(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (/^[ \t]*GPU0([ \t]+\S+)*[ \t]+CPU Affinity/m.test(head)) return 0.95;
  if (/^GPU0\s+X\s/m.test(head)) return 0.9;
  if (/^NIC Legend:\s*$/m.test(head) && /^\s*NIC0:\s*\S+/m.test(head)) return 0.9;
  if (/^\s*PIX\s+= Connection traversing at most a single PCIe bridge/m.test(head)) return 0.85;
  return 0;
}

function isDeviceLabel(token: string): boolean {
  return /^(GPU|NIC)\d+$/.test(token) || /^[a-z][a-z0-9]*_[a-z0-9_]+$/.test(token);
}

interface Header {
  columns: string[];
  tail: Array<(typeof TAIL_COLUMNS)[number]>;
}

function readHeader(line: string): Header | undefined {
  const tokens = line.trim().split(/\s+/);
  // A header names columns after GPU0; a matrix row has a cell code (X, NV12...) there instead.
  if (tokens[0] !== 'GPU0' || !(isDeviceLabel(tokens[1] ?? '') || tokens[1] === 'CPU')) return undefined;
  const columns: string[] = [];
  let i = 0;
  for (; i < tokens.length && isDeviceLabel(tokens[i] ?? ''); i++) columns.push(tokens[i] ?? '');
  const rest = tokens.slice(i).join(' ');
  const tail = TAIL_COLUMNS.filter((name) => rest.includes(name));
  return { columns, tail };
}

function nearestNics(facts: NvidiaSmiTopoFacts): TopoNearestNic[] {
  return facts.gpus.map((gpu) => {
    const row = facts.matrix[gpu.name] ?? {};
    let best: { nic: TopoNic; link: string; rank: number } | undefined;
    const ties: string[] = [];
    for (const nic of facts.nics) {
      const link = row[nic.name];
      const rank = link === undefined ? -1 : PCIE_DISTANCE.indexOf(link);
      if (link === undefined || rank < 0) continue;
      if (!best || rank < best.rank) {
        best = { nic, link, rank };
        ties.length = 0;
      } else if (rank === best.rank) {
        ties.push(nic.name);
      }
    }
    return {
      gpu: gpu.name,
      nic: best?.nic.name ?? null,
      device: best?.nic.device ?? null,
      link: best?.link ?? null,
      alsoAtSameDistance: ties,
    };
  });
}

export function parseNvidiaSmiTopo(text: string): ParseResult<NvidiaSmiTopoFacts> {
  const warnings: ParseWarning[] = [];
  const facts: NvidiaSmiTopoFacts = {
    layout: 'gpu-only',
    gpus: [],
    nics: [],
    matrix: {},
    nearestNic: [],
    legend: {},
  };
  const lines = text.split(/\r?\n/);
  let header: Header | undefined;
  let section: 'matrix' | 'legend' | 'nic-legend' = 'matrix';
  const nicLegend = new Map<string, string>();
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (/^Legend:\s*$/.test(line)) {
      section = 'legend';
      return;
    }
    if (/^NIC Legend:\s*$/.test(line)) {
      section = 'nic-legend';
      return;
    }
    if (section === 'legend') {
      const entry = /^\s*(\S+)\s+=\s+(.*\S)\s*$/.exec(line);
      if (entry) facts.legend[entry[1] ?? ''] = entry[2] ?? '';
      return;
    }
    if (section === 'nic-legend') {
      const entry = /^\s*(NIC\d+):\s*(\S+)\s*$/.exec(line);
      if (entry) nicLegend.set(entry[1] ?? '', entry[2] ?? '');
      return;
    }
    const maybeHeader = readHeader(line);
    if (maybeHeader) {
      if (header)
        warnings.push({ line: lineNumber, message: 'a second matrix header; the later one is used' });
      header = maybeHeader;
      return;
    }
    if (!header) return;
    const tokens = line.trim().split(/\s+/);
    const label = tokens[0] ?? '';
    if (!header.columns.includes(label)) return;
    const cells = tokens.slice(1, 1 + header.columns.length);
    if (cells.length < header.columns.length || !cells.every((cell) => CELL.test(cell))) {
      warnings.push({
        line: lineNumber,
        message: `row ${label} has ${cells.length} of ${header.columns.length} cells or an unknown code; skipped`,
      });
      return;
    }
    facts.matrix[label] = Object.fromEntries(header.columns.map((column, i) => [column, cells[i] ?? '']));
    if (label.startsWith('GPU')) {
      const tail = tokens.slice(1 + header.columns.length);
      const value = (name: (typeof TAIL_COLUMNS)[number]): string | null => {
        const position = header?.tail.indexOf(name) ?? -1;
        return position < 0 ? null : (tail[position] ?? null);
      };
      facts.gpus.push({
        name: label,
        index: Number(label.slice(3)),
        cpuAffinity: value('CPU Affinity'),
        numaAffinity: value('NUMA Affinity'),
        gpuNumaId: value('GPU NUMA ID'),
      });
      if (index === lines.length - 1 && !text.endsWith('\n')) {
        warnings.push({
          line: lineNumber,
          message: `row ${label} is the last line and has no line end: its last column may be cut`,
        });
      }
    }
  });
  if (!header) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('nvidia-smi-topo', firstIndex + 1, lines[firstIndex] ?? '');
  }
  const nicColumns = header.columns.filter((column) => !column.startsWith('GPU'));
  facts.nics = nicColumns.map((name) => ({
    name,
    device: name.startsWith('NIC') ? (nicLegend.get(name) ?? null) : name,
  }));
  if (nicColumns.some((name) => name.startsWith('NIC'))) facts.layout = 'nic-legend';
  else if (nicColumns.length > 0) facts.layout = 'device-columns';
  for (const nic of facts.nics) {
    if (nic.device === null)
      warnings.push({ message: `${nic.name} is not in a NIC Legend (output cut?); its device is unknown` });
  }
  facts.nearestNic = nicColumns.length > 0 ? nearestNics(facts) : [];
  return { kind: 'nvidia-smi-topo', facts, warnings };
}

export const nvidiaSmiTopoParser: Parser<NvidiaSmiTopoFacts> = {
  kind: 'nvidia-smi-topo',
  description: 'nvidia-smi topo -m: GPU/NIC matrix, affinities, NIC legend, nearest NIC per GPU',
  detect: detectNvidiaSmiTopo,
  parse: parseNvidiaSmiTopo,
};
