import { describe, expect, it } from 'vitest';
import { parseJobYaml } from '../../src/spec/load.js';
import { InputError, UsageError } from '../../src/core/errors.js';
import { ClusterSchema } from '../../src/spec/cluster.js';
import { FabricSchema } from '../../src/spec/fabric.js';
import { GpuSchema, pcieBandwidthGBps } from '../../src/spec/gpu.js';
import { resolveCluster } from '../../src/spec/resolve.js';
import { fabricPresets, getFabricPreset, getGpuPreset, gpuPresets } from '../../src/spec/presets/index.js';
import { listPresets } from '../../src/spec/presets/list.js';
import { renderPresetsText } from '../../src/cli/render/presets-text.js';

/** Every leaf value of a preset other than its identity, as `a` or `a.b` paths. */
function valuePaths(preset: object, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [key, value] of Object.entries(preset)) {
    if (prefix === '' && (key === 'id' || key === 'name' || key === 'sources' || key === 'transport'))
      continue;
    if (value !== null && typeof value === 'object')
      paths.push(...valuePaths(value as object, `${prefix}${key}.`));
    else if (value !== undefined) paths.push(`${prefix}${key}`);
  }
  return paths;
}

const job = (cluster: string): string => `name: t
cluster:
  nodes: 2
${cluster}model: llama3-8b
sequenceLength: 4096
globalBatchSize: 16
`;

describe('every preset value names its public source', () => {
  it.each(gpuPresets.map((gpu) => [gpu.id, gpu] as const))('GPU %s', (_id, gpu) => {
    for (const path of valuePaths(gpu)) expect(gpu.sources[path], `${gpu.id}.${path}`).toMatch(/\S{3}/);
  });

  it.each(fabricPresets.map((fabric) => [fabric.id, fabric] as const))('fabric %s', (_id, fabric) => {
    for (const path of valuePaths(fabric))
      expect(fabric.sources[path], `${fabric.id}.${path}`).toMatch(/\S{3}/);
  });

  it('names no source for a value the preset does not have', () => {
    for (const preset of [...gpuPresets, ...fabricPresets]) {
      const paths = new Set(valuePaths(preset));
      for (const key of Object.keys(preset.sources))
        expect(paths.has(key), `${preset.id} sources.${key}`).toBe(true);
    }
  });

  it('says which values are calibration guesses or unverified, rather than leaving them bare', () => {
    expect(getFabricPreset('efa-v2-100g').sources.perMessageLatencyUs).toMatch(/calibration guess/);
    expect(getFabricPreset('efa-v4-400g').sources.mtuBytes).toMatch(/not verified/);
    expect(getGpuPreset('gb10').sources.bf16DenseTflops).toMatch(/derived, not published/);
    expect(getGpuPreset('v100-sxm2').sources.bf16DenseTflops).toMatch(/no BF16/);
  });

  it('every preset passes its own schema unchanged', () => {
    for (const gpu of gpuPresets) expect(GpuSchema.parse(gpu)).toEqual(gpu);
    for (const fabric of fabricPresets) expect(FabricSchema.parse(fabric)).toEqual(fabric);
  });
});

describe('new GPU presets', () => {
  it('resolve by id with their datasheet figures', () => {
    expect(getGpuPreset('v100-sxm2')).toMatchObject({
      bf16DenseTflops: 125,
      hbmBandwidthTBps: 0.9,
      nvlinkBandwidthGBps: 300,
      pcieGen: 3,
      nvls: false,
    });
    expect(getGpuPreset('l40s')).toMatchObject({
      bf16DenseTflops: 362.05,
      fp8DenseTflops: 733,
      nvlinkBandwidthGBps: 0,
      nvlinkDomainGpus: 1,
    });
    expect(getGpuPreset('h100-pcie')).toMatchObject({
      bf16DenseTflops: 756,
      nvlinkBandwidthGBps: 0,
      pcieGen: 5,
    });
    expect(getGpuPreset('gb200')).toMatchObject({
      nvlinkBandwidthGBps: 1800,
      nvlinkDomainGpus: 72,
      nvls: true,
    });
    expect(getGpuPreset('gh200').nvlinkDomainGpus).toBe(1);
    for (const id of ['v100-pcie', 'a100-pcie-80gb', 'gb10'])
      expect(getGpuPreset(id).nvlinkBandwidthGBps, id).toBe(0);
  });

  it('mark NVLS only where NVSwitch has NVLink SHARP (Hopper and later)', () => {
    const nvls = gpuPresets.filter((gpu) => gpu.nvls).map((gpu) => gpu.id);
    expect(nvls).toEqual(['h100-sxm', 'h200', 'b200', 'gh200', 'gb200']);
  });

  it('a PCIe-only GPU has a one-GPU NVLink domain and no NVLS', () => {
    for (const gpu of gpuPresets.filter((g) => g.nvlinkBandwidthGBps === 0)) {
      expect(gpu.nvlinkDomainGpus, gpu.id).toBe(1);
      expect(gpu.nvls, gpu.id).toBe(false);
    }
  });

  it('inline GPUs get nvls false and an 8-GPU NVLink domain unless they say otherwise', () => {
    const parsed = GpuSchema.parse({
      id: 'x',
      name: 'X',
      bf16DenseTflops: 1,
      hbmGB: 1,
      hbmBandwidthTBps: 1,
      nvlinkBandwidthGBps: 0,
      pcieGen: 4,
    });
    expect(parsed).toMatchObject({ nvls: false, nvlinkDomainGpus: 8, pcieLanes: 16 });
    expect(GpuSchema.safeParse({ ...parsed, nvlinkBandwidthGBps: -1 }).success).toBe(false);
  });
});

describe('intra-node link follows the GPU', () => {
  it('defaults to PCIe on a GPU without NVLink, at the PCIe rate', () => {
    for (const id of ['l40s', 'v100-pcie', 'a100-pcie-80gb', 'h100-pcie', 'gb10']) {
      const cluster = parseJobYaml(job(`  gpu: ${id}\n`), 'job.yaml').resolve().cluster;
      expect(cluster.intraNodeKind, id).toBe('pcie');
      expect(cluster.intraNodeGBps, id).toBe(pcieBandwidthGBps(getGpuPreset(id)));
    }
  });

  it('defaults to NVLink, at half the quoted both-directions figure, on an NVLink GPU', () => {
    const cluster = parseJobYaml(job('  gpu: h100-sxm\n'), 'job.yaml').resolve().cluster;
    expect(cluster.intraNodeKind).toBe('nvlink');
    expect(cluster.intraNodeGBps).toBe(450);
  });

  it('still takes an explicit pcie on an NVLink GPU', () => {
    const cluster = parseJobYaml(job('  gpu: h100-sxm\n  intraNode:\n    kind: pcie\n'), 'job.yaml').resolve()
      .cluster;
    expect(cluster.intraNodeKind).toBe('pcie');
  });

  it('refuses nvlink on a PCIe-only GPU, naming the field and its line', () => {
    const resolve = (): unknown =>
      parseJobYaml(job('  gpu: l40s\n  intraNode:\n    kind: nvlink\n'), 'job.yaml').resolve();
    expect(resolve).toThrow(InputError);
    expect(resolve).toThrow(
      /^job\.yaml:6:11 cluster\.intraNode\.kind: nvlink, but GPU l40s has no NVLink \(nvlinkBandwidthGBps 0\)/,
    );
  });

  it('refuses nvlink on a PCIe-only GPU without a file too', () => {
    const spec = ClusterSchema.parse({ nodes: 1, gpu: 'h100-pcie', intraNode: { kind: 'nvlink' } });
    expect(() => resolveCluster(spec)).toThrow(UsageError);
    expect(() => resolveCluster(spec)).toThrow(/^intraNode\.kind: nvlink, but GPU h100-pcie has no NVLink/);
  });

  it('follows a --gpu override rather than the file', () => {
    const spec = ClusterSchema.parse({ nodes: 1, gpu: 'h100-sxm' });
    expect(resolveCluster(spec, { gpu: 'l40s' }).intraNodeKind).toBe('pcie');
  });
});

describe('new fabric presets', () => {
  it('name the network plugin NCCL logs', () => {
    const nets = Object.fromEntries(fabricPresets.map((fabric) => [fabric.id, fabric.ncclNet]));
    expect(nets).toMatchObject({
      'tcp-100g': 'Socket',
      'roce-400g': 'IB',
      'ib-ndr-400g': 'IB',
      'efa-v2-100g': 'Libfabric',
      'efa-v4-400g': 'Libfabric',
      'tcpx-200g': 'GPUDirectTCPX_v7',
      'tcpxo-200g': 'FasTrak',
      'spectrum-x-400g': 'IB',
    });
  });

  it('EFA is its own transport, per card, with GPUDirect RDMA and no PFC', () => {
    expect(getFabricPreset('efa-v2-100g')).toMatchObject({
      transport: 'efa',
      lineRateGbps: 100,
      gpuDirectRdma: true,
      lossless: false,
    });
    expect(getFabricPreset('efa-v4-400g')).toMatchObject({ transport: 'efa', lineRateGbps: 400 });
  });

  it('GPUDirect-TCPX/TCPXO are TCP with devmem, on 200G VM NICs', () => {
    for (const id of ['tcpx-200g', 'tcpxo-200g']) {
      const fabric = getFabricPreset(id);
      expect(fabric, id).toMatchObject({ transport: 'tcp', lineRateGbps: 200, gpuDirectRdma: false });
      expect(fabric.tcp, id).toMatchObject({ devmem: true, virtualized: true });
    }
    for (const fabric of fabricPresets.filter((f) => f.ncclNet === 'Socket'))
      expect(fabric.tcp?.devmem, fabric.id).toBe(false);
  });

  it('Spectrum-X is lossless RoCE v2 at 400G', () => {
    expect(getFabricPreset('spectrum-x-400g')).toMatchObject({
      transport: 'roce',
      lineRateGbps: 400,
      lossless: true,
      gpuDirectRdma: true,
    });
  });

  it('an inline tcp block gets devmem false by default', () => {
    const tcp = {
      perStreamGbps: 10,
      streamsPerPeer: 4,
      lossRate: 0,
      minRtoMs: 200,
      rttUs: 30,
      virtualized: false,
    };
    const fabric = FabricSchema.parse({ ...getFabricPreset('tcp-100g'), sources: undefined, tcp });
    expect(fabric.tcp?.devmem).toBe(false);
    expect(FabricSchema.safeParse({ ...fabric, ncclNet: '' }).success).toBe(false);
  });

  it('load in a job file', () => {
    for (const id of ['efa-v2-100g', 'efa-v4-400g', 'tcpx-200g', 'tcpxo-200g', 'spectrum-x-400g']) {
      const cluster = parseJobYaml(job(`  gpu: h100-sxm\n  fabric: ${id}\n`), 'job.yaml').resolve().cluster;
      expect(cluster.fabric.id).toBe(id);
    }
  });
});

describe('aifabric presets', () => {
  it('--json carries every field and its sources', () => {
    const { metrics } = listPresets();
    const efa = metrics.fabrics?.find((f) => f.id === 'efa-v4-400g');
    expect(efa?.ncclNet).toBe('Libfabric');
    expect(efa?.sources.ncclNet).toMatch(/aws-ofi-nccl/);
    const tcpxo = metrics.fabrics?.find((f) => f.id === 'tcpxo-200g');
    expect(tcpxo?.tcp?.devmem).toBe(true);
    expect(tcpxo?.sources['tcp.devmem']).toMatch(/TCPXO/);
    const l40s = metrics.gpus?.find((g) => g.id === 'l40s');
    expect(l40s).toMatchObject({ nvls: false, nvlinkDomainGpus: 1 });
    expect(l40s?.sources.nvlinkDomainGpus).toBeTruthy();
    const json = JSON.parse(JSON.stringify(listPresets('gpus'))) as {
      metrics: { gpus: { id: string; nvls: boolean; sources: Record<string, string> }[] };
    };
    expect(json.metrics.gpus.map((g) => g.id)).toContain('gb10');
    expect(
      json.metrics.gpus.every((g) => typeof g.nvls === 'boolean' && typeof g.sources.nvls === 'string'),
    ).toBe(true);
  });

  it('text lists the new GPUs and fabrics with their NVLink domain and NCCL net', () => {
    const text = renderPresetsText(listPresets());
    for (const id of [
      'v100-sxm2',
      'v100-pcie',
      'a100-pcie-80gb',
      'l40s',
      'h100-pcie',
      'gh200',
      'gb200',
      'gb10',
      'efa-v4-400g',
      'tcpxo-200g',
      'spectrum-x-400g',
    ]) {
      expect(text).toContain(id);
    }
    const gb200 = text.split('\n').find((line) => line.startsWith('gb200'));
    expect(gb200).toMatch(/\b72\b.*\byes\b/);
    expect(text.split('\n').find((line) => line.startsWith('l40s'))).toMatch(/- \(PCIe\)/);
    expect(text.split('\n').find((line) => line.startsWith('tcpxo-200g'))).toMatch(/devmem.*FasTrak/);
  });
});
