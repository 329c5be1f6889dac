import type { ResultEnvelope } from '../../core/envelope.js';
import type { DataPath } from '../../model/index.js';
import { fixed } from './table.js';

function renderPath(path: DataPath): string {
  const title = `${path.fabric} (${path.transport === 'tcp' ? 'kernel TCP' : path.transport === 'ib' ? 'InfiniBand' : 'RoCE v2'}${path.transport !== 'tcp' ? (path.gpuDirectRdma ? ', GPUDirect RDMA' : ', staged through host memory') : ''})`;
  const steps = path.steps.map((step, index) => {
    const costs = [
      step.copiesPerByte ? `${step.copiesPerByte} copy` : '',
      step.hostMemoryBytesPerByte ? `${step.hostMemoryBytesPerByte} B host DRAM per B` : '',
      step.contextSwitchesPerMiB ? `${fixed(step.contextSwitchesPerMiB, 0)} context switches/MiB` : '',
    ].filter((text) => text !== '');
    return `  ${String(index + 1).padStart(2)}. [${step.side}, ${step.actor}] ${step.step}${costs.length ? `\n      ${costs.join(', ')}` : ''}`;
  });
  return (
    `${title}\n${steps.join('\n')}\n` +
    `  total: ${path.copiesPerByte} copies per byte, ${path.hostMemoryBytesPerByte} B of host memory traffic per byte, ` +
    `${fixed(path.contextSwitchesPerMiB, 0)} context switches per MiB, ${fixed(path.cpuSecondsPerGB, 3)} CPU core-seconds per GB (both ends), ` +
    `${fixed(path.perMessageLatencyUs, 1)} us per message; ${fixed(path.achievableGBpsPerNic, 2)} GB/s per NIC (limited by ${path.limitedBy})\n`
  );
}

export function renderExplainText(result: ResultEnvelope<{ paths: DataPath[] }>): string {
  return `Data path of one transfer, GPU memory to GPU memory across two hosts\n\n${result.metrics.paths.map(renderPath).join('\n')}`;
}
