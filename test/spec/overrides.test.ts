import { describe, expect, it } from 'vitest';
import { AifabricError, UsageError } from '../../src/core/errors.js';
import {
  applyFabricOverrides,
  applyGpuOverrides,
  describeFieldOverrides,
  fieldOverridesFrom,
  groupFieldOverrides,
  parseFieldOverride,
  settableFields,
} from '../../src/spec/overrides.js';
import { getFabricPreset, getGpuPreset } from '../../src/spec/presets/index.js';
import { parseJobYaml } from '../../src/spec/load.js';

/** The message of a bad-usage or bad-input error (exit 2). */
function messageOf(fn: () => unknown, kind: typeof AifabricError = UsageError): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    expect((error as AifabricError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('--set values in the field unit', () => {
  it('reads a bare number in the field unit, or converts a unit', () => {
    expect(parseFieldOverride('fabric.lineRateGbps=200').value).toBe(200);
    expect(parseFieldOverride('fabric.lineRateGbps=25GB/s').value).toBe(200);
    expect(parseFieldOverride('fabric.lineRateGbps=0.4Tbps').value).toBeCloseTo(400, 9);
    expect(parseFieldOverride('gpu.nvlinkBandwidthGBps=7200Gbps').value).toBe(900);
    expect(parseFieldOverride('gpu.hbmBandwidthTBps=4.8TB/s').value).toBeCloseTo(4.8, 12);
    expect(parseFieldOverride('fabric.perMessageLatencyUs=500ns').value).toBeCloseTo(0.5, 12);
    expect(parseFieldOverride('fabric.perMessageLatencyUs=3').value).toBe(3);
    expect(parseFieldOverride('fabric.mtuBytes=9K').value).toBe(9216);
    expect(parseFieldOverride('fabric.tcp.minRtoMs=1s').value).toBe(1000);
    expect(parseFieldOverride('gpu.hbmGB=141GB').value).toBe(141);
    expect(parseFieldOverride('cluster.intraNode.bandwidthGBps=100').value).toBe(100);
  });

  it('reads booleans, enums and strings', () => {
    expect(parseFieldOverride('gpu.nvls=off').value).toBe(false);
    expect(parseFieldOverride('fabric.gpuDirectRdma=TRUE').value).toBe(true);
    expect(parseFieldOverride('fabric.transport=IB').value).toBe('ib');
    expect(parseFieldOverride('cluster.intraNode.kind=pcie')).toEqual({
      scope: 'cluster',
      field: 'intraNode.kind',
      value: 'pcie',
    });
    expect(parseFieldOverride('cluster.ncclVersion=2.18')).toEqual({
      scope: 'cluster',
      field: 'ncclVersion',
      value: '2.18',
    });
  });

  it('offers every scalar field but the identity ones', () => {
    const gpu = settableFields('gpu').map((field) => field.field);
    expect(gpu).toContain('pcieGen');
    expect(gpu).not.toContain('id');
    expect(gpu).not.toContain('sources');
    const fabric = settableFields('fabric').map((field) => field.field);
    expect(fabric).toContain('tcp.perStreamGbps');
    expect(fabric).not.toContain('tcp');
    const cluster = settableFields('cluster').map((field) => field.field);
    expect(cluster).toEqual(
      expect.arrayContaining([
        'nodes',
        'nicsPerNode',
        'gpuDirectRdma',
        'hostMemoryBandwidthGBps',
        'ncclVersion',
        'intraNode.kind',
      ]),
    );
    expect(cluster).not.toContain('fabric');
    expect(cluster).not.toContain('topology');
  });
});

describe('--set errors name the field and the form', () => {
  it('an unknown field, with a near miss', () => {
    expect(messageOf(() => parseFieldOverride('gpu.pcieGn=4'))).toMatch(
      /^--set gpu\.pcieGn: unknown field \(did you mean gpu\.pcieGen\? fields: .*pcieLanes/,
    );
    expect(messageOf(() => parseFieldOverride('gpu.foo=1'))).toMatch(
      /^--set gpu\.foo: unknown field \(fields: bf16DenseTflops, /,
    );
    expect(messageOf(() => parseFieldOverride('gpu.id=x'))).toMatch(/unknown field/);
  });
  it('a wrong unit or type', () => {
    expect(messageOf(() => parseFieldOverride('fabric.lineRateGbps=fast'))).toMatch(
      /^--set fabric\.lineRateGbps: invalid value "fast" \(expected Gb\/s: /,
    );
    expect(messageOf(() => parseFieldOverride('fabric.perMessageLatencyUs=3GB/s'))).toMatch(
      /perMessageLatencyUs: invalid value "3GB\/s" \(expected microseconds/,
    );
    expect(messageOf(() => parseFieldOverride('gpu.nvls=maybe'))).toMatch(/expected true, false, on or off/);
    expect(messageOf(() => parseFieldOverride('fabric.transport=udp'))).toMatch(
      /expected one of tcp, roce, ib, efa/,
    );
    expect(messageOf(() => parseFieldOverride('fabric.lineRateGbps='))).toMatch(/invalid value ""/);
  });
  it('a value out of the schema range', () => {
    expect(messageOf(() => parseFieldOverride('fabric.nicEfficiency=1.5'))).toMatch(
      /^--set fabric\.nicEfficiency: invalid value "1\.5" \(.*<=1\)/,
    );
    expect(messageOf(() => parseFieldOverride('gpu.pcieGen=2'))).toMatch(/pcieGen: invalid value "2"/);
    expect(messageOf(() => parseFieldOverride('gpu.pcieGen=4.5'))).toMatch(/pcieGen: invalid value "4\.5"/);
    expect(messageOf(() => parseFieldOverride('cluster.ncclVersion=3'))).toMatch(
      /ncclVersion: invalid value "3" \(expected an NCCL version/,
    );
  });
  it('a malformed or unscoped assignment', () => {
    expect(messageOf(() => parseFieldOverride('nodes=3'))).toMatch(/expected SCOPE\.FIELD=VALUE/);
    expect(messageOf(() => parseFieldOverride('host.cores=3'))).toMatch(
      /scope "host" is none of gpu, fabric, cluster/,
    );
  });
});

describe('applying overrides', () => {
  it('groups, nests and lets later ones win', () => {
    const fields = groupFieldOverrides(
      ['fabric.tcp.rttUs=30', 'fabric.tcp.lossRate=0.001', 'gpu.pcieGen=4', 'gpu.pcieGen=5'].map((text) =>
        parseFieldOverride(text),
      ),
    );
    expect(fields).toEqual({
      gpu: { pcieGen: 5 },
      fabric: { tcp: { rttUs: 30, lossRate: 0.001 } },
      cluster: {},
    });
    expect(describeFieldOverrides(fields)).toEqual([
      'gpu.pcieGen=5',
      'fabric.tcp.rttUs=30',
      'fabric.tcp.lossRate=0.001',
    ]);
  });

  it('lets the dedicated flags win over --set', () => {
    const fields = fieldOverridesFrom({
      set: ['gpu.pcieGen=4', 'gpu.nvlinkBandwidthGBps=100'],
      pcie: { pcieGen: 3, pcieLanes: 8 },
      nvlinkBandwidthGBps: 900,
    });
    expect(fields.gpu).toEqual({ pcieGen: 3, pcieLanes: 8, nvlinkBandwidthGBps: 900 });
  });

  it('replaces GPU and fabric fields and leaves the preset alone', () => {
    const h100 = getGpuPreset('h100-sxm');
    const changed = applyGpuOverrides(h100, { pcieGen: 4, pcieLanes: 8 });
    expect(changed).toMatchObject({ id: 'h100-sxm', pcieGen: 4, pcieLanes: 8 });
    expect(h100.pcieGen).toBe(5);
    const tcp = getFabricPreset('tcp-100g');
    const slower = applyFabricOverrides(tcp, { lineRateGbps: 50, tcp: { rttUs: 40 } });
    expect(slower.lineRateGbps).toBe(50);
    expect(slower.tcp?.rttUs).toBe(40);
    expect(slower.tcp?.perStreamGbps).toBe(tcp.tcp?.perStreamGbps);
  });

  it('refuses tcp.* on an RDMA fabric unless the override covers several fabrics', () => {
    const roce = getFabricPreset('roce-400g');
    expect(messageOf(() => applyFabricOverrides(roce, { tcp: { rttUs: 40 } }))).toMatch(
      /fabric\.tcp\.rttUs: fabric roce-400g \(roce\) has no TCP behaviour/,
    );
    expect(
      applyFabricOverrides(roce, { tcp: { rttUs: 40 }, lineRateGbps: 200 }, { tcpWhereTcp: true }),
    ).toMatchObject({ lineRateGbps: 200 });
    expect(applyFabricOverrides(roce, { tcp: { rttUs: 40 } }, { tcpWhereTcp: true })).toBe(roce);
  });
});

const JOB = `name: t
cluster:
  nodes: 2
  gpu: h100-sxm
  fabric: roce-400g
  ncclVersion: "2.18"
model: llama3-8b
sequenceLength: 4096
globalBatchSize: 16
`;

describe('cluster files and job overrides', () => {
  it('carries the cluster ncclVersion, and an override replaces it', () => {
    const loaded = parseJobYaml(JOB, 'job.yaml');
    expect(loaded.resolve().cluster.ncclVersion).toBe('2.18');
    expect(loaded.resolve({ ncclVersion: '2.25' }).cluster.ncclVersion).toBe('2.25');
    expect(
      parseJobYaml(JOB.replace('  ncclVersion: "2.18"\n', ''), 'job.yaml').resolve().cluster.ncclVersion,
    ).toBeUndefined();
  });

  it('refuses a malformed ncclVersion at its line', () => {
    expect(messageOf(() => parseJobYaml(JOB.replace('"2.18"', '"two"'), 'job.yaml'), AifabricError)).toMatch(
      /^job\.yaml:6:\d+ cluster\.ncclVersion: expected an NCCL version X\.Y/,
    );
  });

  it('applies --set fields, --gdr and --bandwidth in the resolved cluster', () => {
    const loaded = parseJobYaml(JOB, 'job.yaml');
    const fields = fieldOverridesFrom({
      set: [
        'gpu.pcieLanes=8',
        'fabric.lineRateGbps=200',
        'cluster.nodes=4',
        'cluster.hostMemoryBandwidthGBps=300',
        'cluster.intraNode.kind=pcie',
      ],
    });
    const cluster = loaded.resolve({ fields, gpuDirectRdma: false, bandwidthBps: 100e9 }).cluster;
    expect(cluster.gpu.pcieLanes).toBe(8);
    expect(cluster.fabric.lineRateGbps).toBe(200);
    expect(cluster.nodes).toBe(4);
    expect(cluster.hostMemoryBandwidthGBps).toBe(300);
    expect(cluster.intraNodeKind).toBe('pcie');
    expect(cluster.gpuDirectRdma).toBe(false);
    expect(cluster.bandwidthBps).toBe(100e9);
    // A dedicated flag wins over the --set of the same field.
    expect(loaded.resolve({ fields, nodes: 8 }).cluster.nodes).toBe(8);
  });

  it('reports a field the merged spec refuses, naming it', () => {
    const loaded = parseJobYaml(JOB, 'job.yaml');
    const fields = fieldOverridesFrom({
      set: ['gpu.nvlinkBandwidthGBps=0', 'cluster.intraNode.kind=nvlink'],
    });
    expect(messageOf(() => loaded.resolve({ fields }))).toMatch(
      /^--set cluster\.intraNode\.kind: nvlink, but GPU h100-sxm has no NVLink/,
    );
  });
});
