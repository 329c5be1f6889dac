/** Human text of `aifabric testbed up|fault|status|down`, from their envelopes (src/testbed/result.ts). */
import type { ResultEnvelope } from '../../core/envelope.js';
import {
  describeFault,
  formatBitRate,
  type Fault,
  type TestbedDownMetrics,
  type TestbedFaultMetrics,
  type TestbedStatusMetrics,
  type TestbedUpMetrics,
} from '../../testbed/index.js';

function describeFaults(faults: readonly Fault[]): string {
  return faults.map(describeFault).join(', ');
}

/** The faults line of `up`, `fault` and `status`: empty when there are none. */
function faultLines(faults: readonly Fault[]): string[] {
  return faults.length ? [`  faults (both directions, switch side): ${describeFaults(faults)}`] : [];
}

/** `  leaves: leaf0 h0-h3, leaf1 h4-h7 ...; uplinks 50 Mbit/s each way` for a two-tier testbed. */
function leafLines(
  leaves: number,
  hostLeaves: readonly number[],
  uplinkRateBps: number | undefined,
): string[] {
  if (leaves <= 1) return [];
  const ranges = Array.from({ length: leaves }, (_, leaf) => {
    const hosts = hostLeaves
      .map((owner, index) => [owner, index] as const)
      .filter(([owner]) => owner === leaf)
      .map(([, index]) => index);
    const first = hosts[0];
    const last = hosts[hosts.length - 1];
    return `leaf${leaf} ${first === last ? `h${first}` : `h${first}-h${last}`}`;
  });
  return [
    `  leaves: ${ranges.join(', ')}; uplinks to the spine at ${formatBitRate(uplinkRateBps ?? 0)} each way (htb + bfifo)`,
  ];
}

const numberInput = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

export function renderTestbedUpText(result: ResultEnvelope<TestbedUpMetrics>): string {
  const { inputs, metrics } = result;
  const name = String(inputs.name);
  return [
    `testbed ${name}: ${String(inputs.hosts)} hosts (${metrics.hostNamespaces[0]}..${metrics.hostNamespaces[metrics.hostNamespaces.length - 1]}) on switch ${metrics.switchNamespace}`,
    `  ports: ${formatBitRate(numberInput(inputs.rateBps) ?? 0)}, ${String(inputs.bufferBytes)} bytes of egress buffer (htb + bfifo)`,
    ...leafLines(metrics.leaves, metrics.hostLeaves, numberInput(inputs.uplinkRateBps)),
    ...faultLines(metrics.faults),
    `  addresses: ${metrics.addresses[0]}..${metrics.addresses[metrics.addresses.length - 1]}/24, rendezvous ${metrics.addresses[0]}:29500`,
    `  next: aifabric testbed run --name ${name} -- COMMAND ...   then: aifabric testbed down --name ${name}`,
    '',
  ].join('\n');
}

export function renderTestbedFaultText(result: ResultEnvelope<TestbedFaultMetrics>): string {
  return [
    `testbed ${String(result.inputs.name)}: added ${describeFaults(result.metrics.added)}`,
    ...faultLines(result.metrics.faults),
    '',
  ].join('\n');
}

export function renderTestbedStatusText(result: ResultEnvelope<TestbedStatusMetrics>): string {
  const state = result.metrics;
  const missing = state.missingNamespaces;
  const hosts = state.hostNamespaces;
  return [
    `testbed ${state.name}: ${state.hosts} hosts (${hosts[0]}..${hosts[hosts.length - 1]}) on switch ${state.switchNamespace}${state.complete ? '' : ' (incomplete: its `up` did not finish)'}`,
    `  ports: ${formatBitRate(state.rateBps)}, ${state.bufferBytes} bytes of egress buffer (htb + bfifo)`,
    ...leafLines(state.leaves, state.hostLeaves ?? [], state.uplinkRateBps),
    ...faultLines(state.faults),
    ...(missing.length
      ? [
          `  missing namespaces: ${missing.join(', ')} (remove it with \`aifabric testbed down --name ${state.name}\`)`,
        ]
      : []),
    '',
  ].join('\n');
}

export function renderTestbedDownText(result: ResultEnvelope<TestbedDownMetrics>): string {
  const down = result.metrics;
  const name = String(result.inputs.name);
  const skipped = down.skippedNamespaces.length
    ? ` (left ${down.skippedNamespaces.join(', ')}: not made by aifabric testbed up)`
    : '';
  return down.removedNamespaces.length === 0
    ? `testbed ${name}: nothing to remove${skipped}\n`
    : `testbed ${name}: removed ${down.removedNamespaces.length} namespaces${down.killedPids.length ? `, killed ${down.killedPids.length} processes` : ''}${down.complete === false ? ' (an incomplete testbed)' : ''}${skipped}\n`;
}
