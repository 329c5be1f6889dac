/**
 * rdma.firmware: HCAs of one model should run one firmware version across the cluster; mixed
 * versions are a classic cause of one slow or flapping node. Compared per vendor part id, since a
 * host may carry two NIC models (a ConnectX-7 and a BlueField) with rightly different firmware.
 */
import { makeFinding } from '../../core/rules.js';
import type { CheckFinding, HostCaptures } from '../types.js';
import { capturesOf } from '../types.js';

interface FirmwareSeen {
  host: string;
  device: string;
  part: string;
  version: string;
  evidence: string;
}

function collect(hosts: readonly HostCaptures[]): FirmwareSeen[] {
  const seen: FirmwareSeen[] = [];
  for (const host of hosts) {
    for (const capture of capturesOf(host, 'ibv-devinfo')) {
      for (const device of capture.facts.devices) {
        if (!device.hcaId || !device.fwVer) continue;
        const line = Object.keys(device.fields).includes('fw_ver')
          ? lineOf(capture.text, device.line, 'fw_ver')
          : device.line;
        seen.push({
          host: host.host,
          device: device.hcaId,
          part:
            device.vendorPartId === null ? (device.boardId ?? 'unknown part') : `part ${device.vendorPartId}`,
          version: device.fwVer,
          evidence: `${capture.source}:${line} ${device.hcaId} fw_ver ${device.fwVer}`,
        });
      }
    }
  }
  return seen;
}

function lineOf(text: string | undefined, from: number, key: string): number {
  if (text === undefined) return from;
  const lines = text.split('\n');
  for (let index = Math.max(0, from - 1); index < lines.length && index < from + 40; index++)
    if (lines[index]!.includes(`${key}:`)) return index + 1;
  return from;
}

function majority(versions: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const version of versions) counts.set(version, (counts.get(version) ?? 0) + 1);
  // Ties go to the higher version string so the advice points forward, not back.
  return [...counts.entries()].sort(
    (a, b) => b[1] - a[1] || b[0].localeCompare(a[0], undefined, { numeric: true }),
  )[0]![0];
}

export function checkFirmware(hosts: readonly HostCaptures[]): CheckFinding[] {
  const seen = collect(hosts);
  const findings: CheckFinding[] = [];
  if (seen.length === 0) return findings;
  const expectedByPart = new Map<string, string>();
  for (const part of new Set(seen.map((entry) => entry.part)))
    expectedByPart.set(
      part,
      majority(seen.filter((entry) => entry.part === part).map((entry) => entry.version)),
    );
  for (const host of [...new Set(seen.map((entry) => entry.host))]) {
    const mine = seen.filter((entry) => entry.host === host);
    const odd = mine.filter((entry) => entry.version !== expectedByPart.get(entry.part));
    if (odd.length > 0) {
      findings.push(
        makeFinding('rdma.firmware', {
          family: 'rdma',
          severity: 'warn',
          host,
          message: `${odd.length} HCA(s) run firmware other than the cluster's ${odd[0]!.part} version ${expectedByPart.get(odd[0]!.part)}: ${odd.map((entry) => `${entry.device} ${entry.version}`).join(', ')}`,
          evidence: odd[0]!.evidence,
          remediation:
            'Update with mlxfw/mlxup (or the vendor bundle) so every HCA of a model runs one version, then reboot or mlxfwreset.',
        }),
      );
    } else {
      findings.push(
        makeFinding('rdma.firmware', {
          family: 'rdma',
          severity: 'pass',
          host,
          message: `${mine.length} HCA(s) on the cluster's firmware (${[...new Set(mine.map((entry) => entry.version))].join(', ')})`,
          evidence: mine[0]!.evidence,
        }),
      );
    }
  }
  return findings;
}
