import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClusterFile, parseJobYaml } from '../../src/spec/load.js';
import { InputError } from '../../src/core/errors.js';
import { editDistance, nearestKey, unknownKeyMessage } from '../../src/spec/strict-object.js';
import { MAX_NODES } from '../../src/core/limits.js';

// Defect 3 of issue 9: unknown keys in job and cluster files were dropped silently.
const job = (extra: { top?: string; cluster?: string } = {}): string => `name: t
cluster:
  nodes: 2
  gpu: h100-sxm
  fabric: roce-400g
${extra.cluster ?? ''}model: llama3-8b
sequenceLength: 4096
globalBatchSize: 16
${extra.top ?? ''}`;

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

const lines = (fn: () => unknown): string[] => {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(InputError);
  return error.message.split('\n');
};

describe('edit distance and near misses', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('fabric', 'fabric')).toBe(0);
    expect(editDistance('fabrik', 'fabric')).toBe(1);
    expect(editDistance('computeEfficency', 'computeEfficiency')).toBe(1);
    expect(editDistance('ndoes', 'nodes')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('suggests only close keys, ignoring case', () => {
    const known = ['nodes', 'gpusPerNode', 'nicsPerNode', 'gpu', 'fabric'];
    expect(nearestKey('fabrik', known)).toBe('fabric');
    expect(nearestKey('GPU', known)).toBe('gpu');
    expect(nearestKey('gpusPerNod', known)).toBe('gpusPerNode');
    expect(nearestKey('switches', known)).toBeUndefined();
    expect(nearestKey('gp', ['tp', 'pp'])).toBe('tp');
    expect(nearestKey('xy', ['tp', 'pp'])).toBeUndefined();
    expect(unknownKeyMessage('zz', ['a', 'b'])).toBe("unknown key 'zz' (expected one of a, b)");
  });
});

describe('job files refuse unknown keys at their line', () => {
  it('the two keys of the issue: fabrik and computeEfficency', () => {
    const found = lines(() =>
      parseJobYaml(job({ cluster: '  fabrik: tcp-100g\n', top: 'computeEfficency: 0.9\n' }), 'job.yaml'),
    );
    expect(found).toEqual([
      "job.yaml:6:11 cluster.fabrik: unknown key 'fabrik' (did you mean 'fabric'?)",
      "job.yaml:10:19 computeEfficency: unknown key 'computeEfficency' (did you mean 'computeEfficiency'?)",
    ]);
  });

  it('in every nested mapping', () => {
    const cases: [string, string, RegExp][] = [
      [
        'top',
        'parallelism:\n  tp: 1\n  TP: 2\n',
        /^job\.yaml:11:7 parallelism\.TP: unknown key 'TP' \(did you mean 'tp'\?\)$/,
      ],
      [
        'top',
        'stragglers:\n  jiterCv: 0.1\n',
        /^job\.yaml:10:12 stragglers\.jiterCv: unknown key 'jiterCv' \(did you mean 'jitterCv'\?\)$/,
      ],
      [
        'cluster',
        '  topology:\n    kind: leaf-spine\n    oversubscriptoin: 2\n',
        /^job\.yaml:8:23 cluster\.topology\.oversubscriptoin: unknown key 'oversubscriptoin' \(did you mean 'oversubscription'\?\)$/,
      ],
      [
        'cluster',
        '  topology:\n    kind: single-switch\n    nodesPerLeaf: 4\n',
        /^job\.yaml:8:19 cluster\.topology\.nodesPerLeaf: unknown key 'nodesPerLeaf' \(expected one of kind\)$/,
      ],
      [
        'cluster',
        '  intraNode:\n    kind: pcie\n    bandwith: 32\n',
        /^job\.yaml:8:15 cluster\.intraNode\.bandwith: unknown key 'bandwith' \(expected one of kind, bandwidthGBps\)$/,
      ],
      [
        'top',
        'frobnicate: true\n',
        /^job\.yaml:9:13 frobnicate: unknown key 'frobnicate' \(expected one of name, cluster, model, /,
      ],
    ];
    for (const [where, text, pattern] of cases) {
      const found = lines(() =>
        parseJobYaml(job(where === 'top' ? { top: text } : { cluster: text }), 'job.yaml'),
      );
      expect(found, text).toHaveLength(1);
      expect(found[0], text).toMatch(pattern);
    }
  });

  it('in inline GPU, fabric and model specs, with the other problems of the file', () => {
    const text = `cluster:
  nodes: 2
  fabric:
    id: my-tcp
    name: My TCP
    transport: tcp
    lineRateGbps: 100
    mtuBytes: 9000
    headerBytesPerPacket: 78
    perMessageLatencyUs: 10
    switchHopLatencyUs: 1
    nicEfficiency: 0.9
    gpuDirectRdma: false
    lossless: false
    tcp:
      perStreamGbps: 20
      streamsPerPeer: 2
      lossRate: 0
      minRtoMs: 200
      rttUs: 30
      virtualized: false
      rto: 1
    linerate: 100
model: llama3-8b
sequenceLength: -1
globalBatchSize: 16
`;
    const found = lines(() => parseJobYaml(text, 'inline.yaml'));
    expect(found).toContain(
      "inline.yaml:22:12 cluster.fabric.tcp.rto: unknown key 'rto' (expected one of perStreamGbps, streamsPerPeer, lossRate, minRtoMs, rttUs, virtualized, devmem)",
    );
    expect(
      found.some((line) =>
        line.startsWith(
          "inline.yaml:23:15 cluster.fabric.linerate: unknown key 'linerate' (expected one of id, name, transport, lineRateGbps,",
        ),
      ),
    ).toBe(true);
    expect(found.some((line) => /^inline\.yaml:25:17 sequenceLength: /.test(line))).toBe(true);
  });

  it('still loads every valid job, with or without inline specs', () => {
    expect(parseJobYaml(job(), 'ok.yaml').resolve().cluster.fabric.id).toBe('roce-400g');
    const inline = job().replace(
      'model: llama3-8b',
      'model:\n  id: tiny\n  name: Tiny\n  layers: 2\n  hidden: 64\n  heads: 8\n  kvHeads: 8\n  ffnHidden: 256\n  vocab: 1000',
    );
    expect(parseJobYaml(inline, 'inline.yaml').resolve().model.id).toBe('tiny');
  });
});

describe('partial inline specs name each missing field', () => {
  it('a GPU with three fields', () => {
    const text = job().replace('  gpu: h100-sxm\n', '  gpu:\n    id: x\n    name: X\n    hbmGB: 80\n');
    expect(lines(() => parseJobYaml(text, 'gpu.yaml'))).toEqual([
      'gpu.yaml:5:5 cluster.gpu.bf16DenseTflops: missing field of the inline GPU (expected number)',
      'gpu.yaml:5:5 cluster.gpu.hbmBandwidthTBps: missing field of the inline GPU (expected number)',
      'gpu.yaml:5:5 cluster.gpu.nvlinkBandwidthGBps: missing field of the inline GPU (expected number)',
      'gpu.yaml:5:5 cluster.gpu.pcieGen: missing field of the inline GPU (expected number)',
    ]);
  });

  it('a fabric with a wrong type and a missing field, never a bare "Invalid input"', () => {
    const text = job().replace(
      '  fabric: roce-400g\n',
      '  fabric:\n    id: f\n    name: F\n    transport: udp\n    lineRateGbps: 100\n    mtuBytes: 4096\n    headerBytesPerPacket: 0\n    perMessageLatencyUs: 2\n    switchHopLatencyUs: 1\n    nicEfficiency: 0.9\n    gpuDirectRdma: true\n',
    );
    const found = lines(() => parseJobYaml(text, 'fabric.yaml'));
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(
      /^fabric\.yaml:8:16 cluster\.fabric\.transport: Invalid option: expected one of "tcp"\|"roce"\|"ib"\|"efa"$/,
    );
    expect(found[1]).toBe(
      'fabric.yaml:6:5 cluster.fabric.lossless: missing field of the inline fabric (expected boolean)',
    );
    expect(found[2]).toBe(
      'fabric.yaml:6:5 cluster.fabric.ncclNet: missing field of the inline fabric (expected string)',
    );
  });

  it('a preset field that is neither a name nor a mapping', () => {
    const text = job().replace('  gpu: h100-sxm\n', '  gpu: [1, 2]\n').replace('model: llama3-8b\n', '');
    expect(lines(() => parseJobYaml(text, 'kind.yaml'))).toEqual([
      'kind.yaml:4:8 cluster.gpu: expected a GPU preset name or an inline GPU mapping',
      'kind.yaml:1:1 model: missing (expected a model preset name or an inline model mapping)',
    ]);
  });
});

describe('cluster files', () => {
  const write = (text: string): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'aifabric-spec-')), 'cluster.yaml');
    writeFileSync(file, text);
    return file;
  };

  it('refuse a misspelt fabric instead of defaulting to roce-400g', () => {
    const file = write('nodes: 4\nfabrik: tcp-100g\n');
    expect(errorOf(() => loadClusterFile(file)).message).toBe(
      `${file}:2:9 fabrik: unknown key 'fabrik' (did you mean 'fabric'?)`,
    );
  });

  it('bound the node count', () => {
    const file = write(`nodes: ${MAX_NODES + 1}\n`);
    expect(errorOf(() => loadClusterFile(file)).message).toBe(
      `${file}:1:8 nodes: expected at most ${MAX_NODES} nodes`,
    );
    expect(loadClusterFile(write(`nodes: ${MAX_NODES}\n`)).nodes).toBe(MAX_NODES);
  });
});
