/**
 * Family `straggler`: one slow node holds back every collective, so the same test run per host
 * (or per host pair) is compared across the cluster. A run is named when its plateau busbw is more
 * than 10% below the median of its peers, or a robust z-score (median/MAD, Iglewicz and Hoaglin)
 * below -3.5 with at least a 3% shortfall; latency likewise, above the median, with wider margins
 * because small-message times are noisier.
 */
import { makeFinding } from '../../core/rules.js';
import { median, robustZScores } from '../../core/stats.js';
import { evidenceAt } from '../evidence.js';
import { collectiveOp, plateau, smallMessageLatency } from '../nccl-run.js';
import {
  capturesOf,
  type CheckContext,
  type CheckFinding,
  type RuleFamily,
  type RuleOutput,
} from '../types.js';

export const STRAGGLER_RULES = {
  busbwShortfall: 0.1,
  busbwZ: -3.5,
  busbwMinShortfallForZ: 0.03,
  latencyExcess: 0.25,
  latencyZ: 3.5,
  latencyMinExcessForZ: 0.1,
  minPeers: 3,
};

interface Sample {
  unit: string;
  host: string;
  busbwGBps: number | null;
  latencyUs: number | null;
  busbwEvidence: string;
  latencyEvidence: string;
}

function gather(context: CheckContext): Map<string, Sample[]> {
  const groups = new Map<string, Sample[]>();
  for (const host of context.hosts) {
    for (const capture of capturesOf(host, 'nccl-tests')) {
      for (const test of capture.facts.tests) {
        const hosts = [...new Set(test.devices.map((device) => device.host))].sort();
        const unit = hosts.length > 0 ? hosts.join('+') : host.host;
        const key = `${collectiveOp(test, capture.source)?.op ?? test.collective ?? 'unknown collective'} on ${test.ranks ?? '?'} rank(s)`;
        const list = groups.get(key) ?? [];
        if (list.some((sample) => sample.unit === unit)) continue;
        const top = plateau(test);
        const small = smallMessageLatency(test);
        const lastRow = top?.rows[top.rows.length - 1];
        list.push({
          unit,
          host: host.host,
          busbwGBps: top?.busbwGBps ?? null,
          latencyUs: small?.timeUs ?? null,
          busbwEvidence: evidenceAt(capture, lastRow?.line, `busbw ${top?.busbwGBps ?? '?'} GB/s (plateau)`),
          latencyEvidence: evidenceAt(
            capture,
            small?.row.line,
            `time ${small?.timeUs ?? '?'} us at ${small?.row.sizeBytes ?? '?'} B`,
          ),
        });
        groups.set(key, list);
      }
    }
  }
  return groups;
}

function judge(group: string, samples: Sample[], metric: 'busbw' | 'latency'): CheckFinding[] {
  const present = samples.filter(
    (sample) => (metric === 'busbw' ? sample.busbwGBps : sample.latencyUs) !== null,
  );
  if (present.length < STRAGGLER_RULES.minPeers) return [];
  const values = present.map((sample) => (metric === 'busbw' ? sample.busbwGBps! : sample.latencyUs!));
  const center = median(values);
  const z = robustZScores(values);
  return present.map((sample, index) => {
    const value = values[index]!;
    const score = z[index]!;
    const base = {
      family: 'straggler' as const,
      host: sample.host,
      evidence: metric === 'busbw' ? sample.busbwEvidence : sample.latencyEvidence,
      medianValue: center,
      robustZ: score,
    };
    if (metric === 'busbw') {
      const shortfall = 1 - value / center;
      const outlier =
        shortfall > STRAGGLER_RULES.busbwShortfall ||
        (score < STRAGGLER_RULES.busbwZ && shortfall > STRAGGLER_RULES.busbwMinShortfallForZ);
      return outlier
        ? makeFinding('straggler.busbw', {
            ...base,
            severity: 'error',
            message: `${sample.unit} is a straggler in ${group}: busbw ${value.toFixed(2)} GB/s is ${(shortfall * 100).toFixed(1)}% below the median ${center.toFixed(2)} GB/s of ${present.length} runs (robust z ${score.toFixed(1)})`,
            remediation:
              'Take the node out of the job and check its GPU clocks and thermals (nvidia-smi -q -d PERFORMANCE), NIC link rate and errors, PCIe link width (lspci -vv), and its NVLink/NVSwitch state.',
          })
        : makeFinding('straggler.busbw', {
            ...base,
            severity: 'pass',
            message: `${sample.unit}: busbw ${value.toFixed(2)} GB/s within 10% of the median ${center.toFixed(2)} GB/s (${group})`,
          });
    } else {
      const excess = value / center - 1;
      const outlier =
        excess > STRAGGLER_RULES.latencyExcess ||
        (score > STRAGGLER_RULES.latencyZ && excess > STRAGGLER_RULES.latencyMinExcessForZ);
      return outlier
        ? makeFinding('straggler.latency', {
            ...base,
            severity: 'warn',
            message: `${sample.unit} has outlying small-message latency in ${group}: ${value} us is ${(excess * 100).toFixed(0)}% above the median ${center} us (robust z ${score.toFixed(1)})`,
            remediation:
              'Check CPU frequency scaling and C-states, IRQ affinity of the NIC, and whether another job shares the node.',
          })
        : makeFinding('straggler.latency', {
            ...base,
            severity: 'pass',
            message: `${sample.unit}: small-message latency ${value} us in line with the median ${center} us (${group})`,
          });
    }
  });
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  const notes: string[] = [];
  for (const [group, samples] of gather(context)) {
    if (samples.length < STRAGGLER_RULES.minPeers) {
      if (context.hosts.length > 1)
        notes.push(
          `straggler: ${group}: ${samples.length} run(s); at least ${STRAGGLER_RULES.minPeers} are needed to compare`,
        );
      continue;
    }
    findings.push(...judge(group, samples, 'busbw'), ...judge(group, samples, 'latency'));
  }
  return { findings, notes };
}

export const stragglerRules: RuleFamily = { id: 'straggler', title: 'Stragglers', run };
