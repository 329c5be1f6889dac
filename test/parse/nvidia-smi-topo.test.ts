import { describe, expect, it } from 'vitest';
import { parseNvidiaSmiTopo } from '../../src/parse/nvidia-smi-topo.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'nvidia-smi-topo';

describe('nvidia-smi topo parser: facts checked by hand against the text', () => {
  it('maps each GPU to its PIX NIC through the NIC legend (space-separated copy)', () => {
    const { facts } = parseNvidiaSmiTopo(fixtureText(KIND, 'sglang-env-hopper-nv18-8nic-spaces.txt'));
    expect(facts.layout).toBe('nic-legend');
    expect(facts.nearestNic.map((n) => `${n.gpu}>${n.device}:${n.link}`)).toEqual(
      Array.from({ length: 8 }, (_, i) => `GPU${i}>mlx5_${i}:PIX`),
    );
    expect(facts.gpus[4]).toEqual({
      name: 'GPU4',
      index: 4,
      cpuAffinity: '48-95,144-191',
      numaAffinity: '1',
      gpuNumaId: 'N/A',
    });
    expect(facts.matrix.GPU0!.GPU1).toBe('NV18');
    expect(facts.legend.PIX).toBe('Connection traversing at most a single PCIe bridge');
  });

  it('reports ties: two NICs behind the same PCIe switch (tab-separated copy)', () => {
    const { facts } = parseNvidiaSmiTopo(fixtureText(KIND, 'hpc-notes-a100-nv12-10nic-pxb-tabs.txt'));
    expect(facts.nearestNic[2]).toEqual({
      gpu: 'GPU2',
      nic: 'NIC2',
      device: 'mlx5_2',
      link: 'PXB',
      alsoAtSameDistance: ['NIC3'],
    });
    expect(facts.gpus[2]).toMatchObject({ cpuAffinity: '16-31,144-159', numaAffinity: '1', gpuNumaId: null });
    expect(facts.nics).toHaveLength(10);
  });

  it('reads the old layout whose NIC columns are device names', () => {
    const { facts, warnings } = parseNvidiaSmiTopo(
      fixtureText(KIND, 'nccl-tests-issue78-dgx2-mlx5-columns-truncated.txt'),
    );
    expect(facts.layout).toBe('device-columns');
    expect(facts.gpus).toHaveLength(5);
    expect(facts.nearestNic[3]).toMatchObject({ gpu: 'GPU3', device: 'mlx5_1', link: 'PIX' });
    expect(warnings).toEqual([
      { line: 7, message: 'row GPU4 is the last line and has no line end: its last column may be cut' },
    ]);
  });

  it('finds a GPU whose only NIC is across the CPU interconnect (SYS)', () => {
    const { facts } = parseNvidiaSmiTopo(
      fixtureText(KIND, 'kubernetes-issue53497-pcie-mlx4-column-truncated.txt'),
    );
    expect(facts.nearestNic.map((n) => n.link)).toEqual(['PHB', 'PHB', 'PHB', 'PHB', 'SYS']);
    expect(facts.nics).toEqual([{ name: 'mlx4_0', device: 'mlx4_0' }]);
  });

  it('reads GPU-only matrices without inventing NICs', () => {
    const { facts } = parseNvidiaSmiTopo(fixtureText(KIND, 'aws-p4d-24xlarge-a100-nv12-topo.txt'));
    expect(facts).toMatchObject({ layout: 'gpu-only', nics: [], nearestNic: [] });
    expect(facts.gpus).toHaveLength(8);
  });

  it('skips a row cut short', () => {
    const text = fixtureText(KIND, 'sglang-env-hopper-nv18-8nic-spaces.txt').replace(
      /^(GPU5(\s+\S+){6}).*$/m,
      '$1',
    );
    const { facts, warnings } = parseNvidiaSmiTopo(text);
    expect(facts.gpus.map((g) => g.name)).not.toContain('GPU5');
    expect(warnings[0]!.message).toMatch(/row GPU5 has 6 of 16 cells/);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseNvidiaSmiTopo(fixtureText('perftest', 'notes-ib_send_bw-all-sizes-mlx4.txt'))).toThrow(
      NotThisKindError,
    );
  });
});
