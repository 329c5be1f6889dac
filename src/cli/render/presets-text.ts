import type { ResultEnvelope } from '../../core/envelope.js';
import type { PresetsMetrics } from '../../spec/index.js';
import { parameterCounts, wireEfficiency } from '../../model/index.js';
import { fixed, renderTable } from './table.js';

export function renderPresetsText(result: ResultEnvelope<PresetsMetrics>): string {
  const parts: string[] = [];
  const { fabrics, gpus, models } = result.metrics;
  if (fabrics) {
    parts.push('Fabrics (per NIC)\n');
    parts.push(
      renderTable(
        [
          { header: 'id', align: 'left' },
          { header: 'transport', align: 'left' },
          { header: 'Gb/s' },
          { header: 'MTU' },
          { header: 'wire eff' },
          { header: 'latency us' },
          { header: 'GPUDirect', align: 'left' },
          { header: 'lossless', align: 'left' },
          { header: 'TCP streams x Gb/s', align: 'left' },
          { header: 'NCCL net', align: 'left' },
        ],
        fabrics.map((f) => [
          f.id,
          f.transport,
          String(f.lineRateGbps),
          String(f.mtuBytes),
          fixed(wireEfficiency(f), 3),
          fixed(f.perMessageLatencyUs, 1),
          f.gpuDirectRdma ? 'yes' : 'no',
          f.lossless ? 'yes' : 'no',
          f.tcp
            ? `${f.tcp.streamsPerPeer} x ${f.tcp.perStreamGbps}${f.tcp.virtualized ? ' (VM)' : ''}${f.tcp.devmem ? ' devmem' : ''}`
            : '-',
          f.ncclNet,
        ]),
      ),
    );
  }
  if (gpus) {
    parts.push('\nGPUs\n');
    parts.push(
      renderTable(
        [
          { header: 'id', align: 'left' },
          { header: 'BF16 dense TFLOP/s' },
          { header: 'FP8 dense' },
          { header: 'HBM GB' },
          { header: 'HBM TB/s' },
          { header: 'NVLink GB/s' },
          { header: 'NVLink GPUs' },
          { header: 'NVLS', align: 'left' },
          { header: 'PCIe' },
        ],
        gpus.map((g) => [
          g.id,
          String(g.bf16DenseTflops),
          g.fp8DenseTflops !== undefined ? String(g.fp8DenseTflops) : '-',
          String(g.hbmGB),
          String(g.hbmBandwidthTBps),
          g.nvlinkBandwidthGBps > 0 ? String(g.nvlinkBandwidthGBps) : '- (PCIe)',
          String(g.nvlinkDomainGpus),
          g.nvls ? 'yes' : 'no',
          `Gen${g.pcieGen} x${g.pcieLanes}`,
        ]),
      ),
    );
  }
  if (models) {
    parts.push('\nModels\n');
    parts.push(
      renderTable(
        [
          { header: 'id', align: 'left' },
          { header: 'params (B)' },
          { header: 'layers' },
          { header: 'hidden' },
          { header: 'heads/kv' },
          { header: 'vocab' },
          { header: 'experts' },
        ],
        models.map((m) => [
          m.id,
          fixed(parameterCounts(m).total / 1e9, 1),
          String(m.layers),
          String(m.hidden),
          `${m.heads}/${m.kvHeads}`,
          String(m.vocab),
          m.experts > 1 ? `${m.experts} (top ${m.expertsPerToken})` : '1',
        ]),
      ),
    );
  }
  parts.push('\nEvery value names its public source: see `aifabric presets --json` (field "sources").\n');
  return parts.join('');
}
