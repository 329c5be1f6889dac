import { describe, expect, it } from 'vitest';
import { getFabricPreset } from '../../src/spec/index.js';
import { check, findingsOf, fixture, host, nonPass } from './helpers.js';

const roce = { fabric: getFabricPreset('roce-400g') };
const pcieTopo = fixture('nvidia-smi-topo', 'kubernetes-issue53497-pcie-mlx4-column-truncated.txt');
const pxbTopo = fixture('nvidia-smi-topo', 'hpc-notes-a100-nv12-10nic-pxb-tabs.txt');
const pixTopo = fixture('nvidia-smi-topo', 'sglang-env-hopper-nv18-8nic-spaces.txt');

describe('gdr.nic-distance', () => {
  it('real PCIe host: GPU0-3 through the host bridge warn, GPU4 across the socket is an error', () => {
    const result = check([host('k8s', { topo: pcieTopo })], roce);
    expect(nonPass(result)).toEqual(['error gdr.nic-distance k8s', 'warn gdr.nic-distance k8s']);
    const [error, warn] = findingsOf(result, 'gdr.nic-distance');
    expect(error?.message).toMatch(/GPU4->mlx4_0 SYS/);
    expect(error?.evidence).toMatch(/^topo:7 GPU4 mlx4_0 SYS$/);
    expect(warn?.message).toMatch(/4 GPU\(s\).*GPU0->mlx4_0 PHB/);
  });

  it('passes when every GPU has a NIC behind its PCIe switch (PXB and PIX layouts)', () => {
    expect(nonPass(check([host('a', { topo: pxbTopo })], roce))).toEqual([]);
    expect(findingsOf(check([host('b', { topo: pixTopo })], roce), 'gdr.nic-distance')[0]?.severity).toBe(
      'pass',
    );
  });

  it('judges only the NICs NCCL_IB_HCA selects: pinning to mlx5_0 puts GPU4-7 across the socket', () => {
    const result = check(
      [host('h', { topo: pixTopo, 'env.sh': 'export NCCL_IB_HCA==mlx5_0\nexport NCCL_DEBUG=WARN\n' })],
      roce,
    );
    const [error] = findingsOf(result, 'gdr.nic-distance').filter((finding) => finding.severity === 'error');
    expect(error?.message).toMatch(/^7 GPU\(s\)/);
    expect(error?.message).toMatch(/GPU4->mlx5_0 SYS/);
  });

  it('does not apply to a TCP fabric', () => {
    const result = check([host('h', { topo: pcieTopo })], { fabric: getFabricPreset('tcp-100g') });
    expect(findingsOf(result, 'gdr.nic-distance')).toEqual([]);
    expect(result.metrics.notes.join('\n')).toMatch(/GPUDirect RDMA does not apply/);
  });
});

describe('gdr.level', () => {
  const withLevel = (level: string) =>
    check(
      [
        host('h', {
          topo: pxbTopo,
          'env.sh': `export NCCL_NET_GDR_LEVEL=${level}\nexport NCCL_IB_HCA=mlx5\n`,
        }),
      ],
      roce,
    );
  it("warns when the level excludes the GPUs' PXB paths, passes when it admits them", () => {
    expect(findingsOf(withLevel('PIX'), 'gdr.level')[0]?.severity).toBe('warn');
    expect(findingsOf(withLevel('PIX'), 'gdr.level')[0]?.message).toMatch(/excludes 8 GPU/);
    expect(findingsOf(withLevel('PXB'), 'gdr.level')[0]?.severity).toBe('pass');
    // Legacy integers map through NCCL's table: 2 is PXB, 0 is LOC (GPUDirect off).
    expect(findingsOf(withLevel('2'), 'gdr.level')[0]?.severity).toBe('pass');
    expect(findingsOf(withLevel('0'), 'gdr.level')[0]?.message).toMatch(/disables GPUDirect RDMA/);
  });
});

describe('gdr.log', () => {
  it('real MOC log says GDR 0 on RoCE: a warning quoting the line', () => {
    const result = check(
      [
        host('moc', {
          'moc.log': fixture('nccl-tests', 'moc-h100-2node-1gpu-roce-all_reduce-nccl-info.log'),
        }),
      ],
      roce,
    );
    const [log] = findingsOf(result, 'gdr.log');
    expect(log?.severity).toBe('warn');
    expect(log?.evidence).toBe('moc.log:55 NCCL INFO Connected all rings, use ring PXN 0 GDR 0');
  });

  it('real MOC sendrecv log shows GDRDMA channels: pass', () => {
    const result = check(
      [host('moc', { 'sr.log': fixture('nccl-tests', 'moc-h100-2node-4gpu-roce-sendrecv-nccl-info.log') })],
      roce,
    );
    expect(findingsOf(result, 'gdr.log')[0]?.severity).toBe('pass');
  });
});
