import { describe, expect, it } from 'vitest';
import { predictBusbwPlateauGBps } from '../../src/model/index.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getFabricPreset, loadClusterFile } from '../../src/spec/index.js';
import { check, findingsOf, fixture, host, nonPass, scaleBusbw } from './helpers.js';

const oci = fixture('nccl-tests', 'oci-2x8-a100-roce-all_reduce-v2.17.9.log');
const moc = fixture('nccl-tests', 'moc-h100-2node-1gpu-roce-all_reduce-nccl-info.log');
const healthyLog = fixture('check', 'healthy-roce', 'all_reduce_2node.log');

describe('busbw.plateau', () => {
  it('takes nodes from the hosts and GPUs per node from ranks / hosts, even with a trimmed device listing (real OCI log)', () => {
    const result = check([host('oci', { 'oci.log': oci })], { fabric: getFabricPreset('roce-200g') });
    const [plateau] = findingsOf(result, 'busbw.plateau');
    const expected = predictBusbwPlateauGBps({
      op: 'all_reduce',
      nodes: 2,
      gpusPerNode: 8,
      nicsPerNode: 8,
      fabric: 'roce-200g',
      gpu: 'a100-40gb',
    });
    expect(plateau?.message).toMatch(/2 node\(s\) x 8 GPU\(s\), 8 NIC\(s\) per node, roce-200g/);
    // The four rows within 8x of 8 GiB; the median of each row's better busbw.
    expect(plateau?.measuredBusbwGBps).toBeCloseTo((187.18 + 188.56) / 2, 9);
    expect(plateau?.expectedBusbwGBps).toBeCloseTo(expected, 9);
    expect(plateau?.severity).toBe((plateau?.ratio as number) >= 0.9 ? 'pass' : 'error');
  });

  it('flags the real MOC run (one H100 per node on one 400G RoCE NIC, peak 15 GB/s) as far below the model', () => {
    const result = check([host('moc', { 'moc.log': moc })], { fabric: getFabricPreset('roce-400g') });
    expect(findingsOf(result, 'busbw.plateau')[0]?.message).toMatch(
      /^all_reduce \(collective read from the table\)/,
    );
    const [plateau] = findingsOf(result, 'busbw.plateau');
    expect(plateau?.severity).toBe('error');
    expect(plateau?.ratio as number).toBeLessThan(0.4);
    expect(plateau?.evidence).toMatch(/^moc\.log:\d+ busbw 15(\.\d+)? GB\/s at \d+ B$/);
  });

  it('passes at exactly 90% and fails just below (threshold is inclusive)', () => {
    const base = check([host('h', { 'a.log': healthyLog })], { fabric: getFabricPreset('roce-400g') });
    const measured = findingsOf(base, 'busbw.plateau')[0]!.measuredBusbwGBps as number;
    const expected = findingsOf(base, 'busbw.plateau')[0]!.expectedBusbwGBps as number;
    const scaled = (factor: number) => scaleBusbw(healthyLog, factor);
    const at = (ratio: number) =>
      findingsOf(
        check([host('h', { 'a.log': scaled((ratio * expected) / measured) })], {
          fabric: getFabricPreset('roce-400g'),
        }),
        'busbw.plateau',
      )[0]!;
    expect(at(0.9005).severity).toBe('pass');
    expect(at(0.8995).severity).toBe('error');
  });

  it('takes NICs per node, GPU model and fabric from --cluster', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-cluster-'));
    const file = join(dir, 'cluster.yaml');
    writeFileSync(file, 'nodes: 2\ngpusPerNode: 8\nnicsPerNode: 4\ngpu: h200\nfabric: ib-ndr-400g\n');
    const result = check([host('h', { 'a.log': healthyLog })], { cluster: loadClusterFile(file) });
    const [plateau] = findingsOf(result, 'busbw.plateau');
    expect(result.metrics.fabric).toEqual({
      id: 'ib-ndr-400g',
      transport: 'ib',
      lineRateGbps: 400,
      source: 'cluster',
    });
    expect(plateau?.message).toMatch(/4 NIC\(s\) per node, ib-ndr-400g/);
    expect(plateau?.expectedBusbwGBps).toBeCloseTo(
      predictBusbwPlateauGBps({
        op: 'all_reduce',
        nodes: 2,
        gpusPerNode: 8,
        nicsPerNode: 4,
        fabric: 'ib-ndr-400g',
        gpu: 'h200',
      }),
      9,
    );
  });

  it('reads sendrecv from the table of a real log that does not name its collective', () => {
    const result = check(
      [host('moc', { 'x.log': fixture('nccl-tests', 'moc-h100-2node-4gpu-roce-sendrecv-nccl-info.log') })],
      { fabric: getFabricPreset('roce-400g') },
    );
    expect(findingsOf(result, 'busbw.plateau')[0]?.message).toMatch(
      /^sendrecv \(collective read from the table\): .* 2 node\(s\) x 4 GPU\(s\)/,
    );
  });

  it('a single-node run below 90% is a warning: it measures NVLink, not the fabric', () => {
    const single = fixture('check', 'straggler-8-hosts', 'node01', 'all_reduce_1node.txt');
    const [plateau] = findingsOf(
      check([host('node01', { 'log.txt': scaleBusbw(single, 0.5) })], {
        fabric: getFabricPreset('roce-400g'),
      }),
      'busbw.plateau',
    );
    expect(plateau?.severity).toBe('warn');
    expect(plateau?.message).toMatch(
      /1 node\(s\) x 8 GPU\(s\).*a single-node run measures NVLink\/PCIe, not the fabric/,
    );
  });

  it('does not judge a GPU it has no preset for, nor a sweep that stops far below the plateau (real K80 and V100 logs)', () => {
    const k80 = check(
      [host('k80', { 'all_reduce.log': fixture('nccl-tests', 'azureml-k80-1node-all_reduce-pre2.13.log') })],
      { fabric: getFabricPreset('roce-400g') },
    );
    expect(findingsOf(k80, 'busbw.plateau')).toEqual([]);
    expect(k80.metrics.notes.join('\n')).toMatch(/no GPU preset for "Tesla K80"; give --cluster with a gpu/);
    const cut = check(
      [
        host('v100', {
          'bc.txt': fixture(
            'nccl-tests',
            'nccl-tests-issue82-v100-broadcast-oldformat-nccl-warn-truncated.txt',
          ),
        }),
      ],
      { fabric: getFabricPreset('roce-400g') },
    );
    expect(findingsOf(cut, 'busbw.plateau')).toEqual([]);
    expect(cut.metrics.notes.join('\n')).toMatch(/the sweep stops at 8 B, far below the plateau/);
  });

  it('leaves the plateau unjudged, with a note, when no fabric is declared or inferable', () => {
    const result = check([host('h', { 'a.log': healthyLog })]);
    expect(findingsOf(result, 'busbw.plateau')).toEqual([]);
    expect(result.metrics.notes.join('\n')).toMatch(/busbw\.plateau: a\.log:1: no fabric declared/);
  });
});

describe('busbw.wrong, busbw.out-of-bounds, busbw.avg-reliance', () => {
  it('reports #wrong above zero with the row it was seen on', () => {
    const lines = healthyLog.split('\n');
    const index = lines.findIndex((line) => /^\s+1073741824\s/.test(line));
    lines[index] = lines[index]!.replace(/\s0(\s+\S+\s+\S+\s+\S+\s+)0$/, ' 3$1 0');
    const result = check([host('h', { 'a.log': lines.join('\n') })], {
      fabric: getFabricPreset('roce-400g'),
    });
    const [wrong] = findingsOf(result, 'busbw.wrong');
    expect(wrong?.severity).toBe('error');
    expect(wrong?.evidence).toBe(`a.log:${index + 1} #wrong 3/0 at 1073741824 B`);
    expect(wrong?.wrongElements).toBe(3);
  });

  it('reports the failed out-of-bounds line of a real V100 all_gather log', () => {
    const text = fixture('nccl-tests', 'nccl-tests-issue37-v100-all_gather-oldformat-oob-failed.txt');
    const result = check([host('v100', { 'ag.txt': text })]);
    const [oob] = findingsOf(result, 'busbw.out-of-bounds');
    expect(oob?.severity).toBe('error');
    expect(oob?.evidence).toMatch(/^ag\.txt:\d+ Out of bounds values : \d+ FAILED$/);
  });

  it('warns when NCCL_TESTS_MIN_BW gates on the printed average, and only then', () => {
    const gated = healthyLog.replace(/(# Avg bus bandwidth\s+:\s+\S+)\s*$/m, '$1 FAILED');
    expect(nonPass(check([host('h', { 'a.log': gated })], { fabric: getFabricPreset('roce-400g') }))).toEqual(
      ['warn busbw.avg-reliance h'],
    );
    expect(
      findingsOf(
        check([host('h', { 'a.log': healthyLog })], { fabric: getFabricPreset('roce-400g') }),
        'busbw.avg-reliance',
      ),
    ).toEqual([]);
  });
});
