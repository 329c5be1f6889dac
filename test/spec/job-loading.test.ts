import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { parseJobYaml, loadJobFile } from '../../src/spec/load.js';
import { InputError, UsageError } from '../../src/core/errors.js';
import {
  getFabricPreset,
  getGpuPreset,
  getModelPreset,
  fabricPresets,
  gpuPresets,
  modelPresets,
} from '../../src/spec/presets/index.js';
import { DEFAULT_JOB_YAML } from '../../src/demo/default-job.js';
import { VERSION } from '../../src/core/version.js';

const valid = `name: t
cluster:
  nodes: 2
  gpu: h100-sxm
  fabric: roce-400g
model: llama3-8b
sequenceLength: 4096
globalBatchSize: 16
`;

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('job files', () => {
  it('loads and resolves a valid job, deriving dp', () => {
    const job = parseJobYaml(valid, 'job.yaml').resolve();
    expect(job.parallelism.dp).toBe(16);
    expect(job.cluster.nicsPerNode).toBe(8);
    expect(job.microBatches).toBe(1);
    expect(job.cluster.fabric.id).toBe('roce-400g');
  });

  it('reports every schema problem at file:line:col with its path', () => {
    const text = `name: t
cluster:
  nodes: 0
  gpu: h100-sxm
model: llama3-8b
sequenceLength: -5
globalBatchSize: 16
precision: bf17
`;
    const error = errorOf(() => parseJobYaml(text, 'bad.yaml'));
    expect(error).toBeInstanceOf(InputError);
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^bad\.yaml:3:10 cluster\.nodes: /);
    expect(lines.some((line) => /^bad\.yaml:6:17 sequenceLength: /.test(line))).toBe(true);
    expect(lines.some((line) => /^bad\.yaml:8:12 precision: /.test(line))).toBe(true);
  });

  it('reports a missing field at its parent', () => {
    const error = errorOf(() =>
      parseJobYaml('cluster:\n  nodes: 2\nmodel: llama3-8b\nglobalBatchSize: 8\n', 'missing.yaml'),
    );
    expect(error.message).toMatch(/^missing\.yaml:1:1 sequenceLength: /);
  });

  it('reports YAML syntax errors with their position', () => {
    const error = errorOf(() => parseJobYaml('cluster: [1, 2\nmodel: x\n', 'syntax.yaml'));
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/^syntax\.yaml:\d+:\d+ /);
  });

  it('locates an unknown preset on its line', () => {
    const error = errorOf(() => parseJobYaml(valid.replace('roce-400g', 'roce-999g'), 'preset.yaml'));
    expect(error.message).toMatch(
      /^preset\.yaml:5:11 cluster\.fabric: unknown fabric preset "roce-999g" \(expected one of tcp-25g, /,
    );
  });

  it('checks parallel degrees against the GPU count', () => {
    const text = valid.replace('model: llama3-8b', 'model: llama3-8b\nparallelism:\n  tp: 8\n  dp: 4');
    const error = errorOf(() => parseJobYaml(text, 'par.yaml'));
    expect(error.message).toMatch(/^par\.yaml:9:7 parallelism\.dp: dp 4 x tp 8/);
  });

  it('says which file is missing', () => {
    const error = errorOf(() => loadJobFile('/nonexistent/job.yaml'));
    expect(error.message).toBe('/nonexistent/job.yaml: cannot read file (no such file)');
  });

  it('keeps the batch per replica when the node count changes', () => {
    const loaded = parseJobYaml(valid, 'job.yaml');
    const bigger = loaded.resolve({ nodes: 8 });
    expect(bigger.parallelism.dp).toBe(64);
    expect(bigger.globalBatchSize).toBe(64);
  });
});

describe('presets', () => {
  it('has exactly the ids the issue names', () => {
    expect(fabricPresets.map((p) => p.id)).toEqual([
      'tcp-25g',
      'tcp-100g',
      'tcp-100g-virtualized',
      'tcp-400g',
      'roce-100g',
      'roce-200g',
      'roce-400g',
      'roce-800g',
      'ib-edr-100g',
      'ib-hdr-200g',
      'ib-ndr-400g',
      'ib-xdr-800g',
      'efa-v2-100g',
      'efa-v4-400g',
      'tcpx-200g',
      'tcpxo-200g',
      'spectrum-x-400g',
    ]);
    expect(gpuPresets.map((p) => p.id)).toEqual([
      'a100-40gb',
      'a100-80gb',
      'h100-sxm',
      'h200',
      'b200',
      'v100-sxm2',
      'v100-pcie',
      'a100-pcie-80gb',
      'l40s',
      'h100-pcie',
      'gh200',
      'gb200',
      'gb10',
    ]);
    expect(modelPresets.map((p) => p.id)).toEqual([
      'llama3-8b',
      'llama3-70b',
      'llama3-405b',
      'gpt3-175b',
      'mixtral-8x7b',
    ]);
  });

  it('looks ids up ignoring case and names the valid ones otherwise', () => {
    expect(getFabricPreset('RoCE-400G').id).toBe('roce-400g');
    expect(getGpuPreset(' H100-SXM ').id).toBe('h100-sxm');
    expect(getModelPreset('LLAMA3-70B').layers).toBe(80);
    expect(() => getGpuPreset('v100')).toThrow(UsageError);
    expect(() => getGpuPreset('v100')).toThrow(
      /expected one of a100-40gb, a100-80gb, h100-sxm, h200, b200, v100-sxm2, /,
    );
  });

  it('gives every fabric value a source', () => {
    for (const fabric of fabricPresets) {
      for (const field of [
        'lineRateGbps',
        'mtuBytes',
        'headerBytesPerPacket',
        'perMessageLatencyUs',
        'switchHopLatencyUs',
        'gpuDirectRdma',
      ]) {
        expect(fabric.sources[field], `${fabric.id}.${field}`).toBeTruthy();
      }
      if (fabric.tcp)
        for (const field of ['tcp.perStreamGbps', 'tcp.streamsPerPeer', 'tcp.lossRate', 'tcp.minRtoMs'])
          expect(fabric.sources[field]).toBeTruthy();
    }
    for (const preset of [...gpuPresets, ...modelPresets])
      expect(Object.keys(preset.sources).length).toBeGreaterThan(0);
  });
});

describe('package consistency', () => {
  it('embeds the demo job exactly as examples/ holds it', () => {
    expect(DEFAULT_JOB_YAML).toBe(
      readFileSync(new URL('../../examples/jobs/llama3-70b-8xh100.yaml', import.meta.url), 'utf8'),
    );
  });

  it('reports the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });

  it('loads every example job (the folder, read)', () => {
    const folder = new URL('../../examples/jobs/', import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) {
      expect(() => loadJobFile(new URL(file, folder).pathname), file).not.toThrow();
    }
  });
});
