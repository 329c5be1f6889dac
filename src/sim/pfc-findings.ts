/**
 * Findings of the lossless fabric's failure modes: PFC deadlocks (a cycle of paused queues, see
 * net/pfc-deadlock.ts), pause storms (a NIC that keeps sending PAUSE, its spread through the
 * fabric and the flows it stops that never touch that NIC) and what the PFC watchdog dropped.
 * Metrics are added only when the feature is in play, so scenarios without it keep their output.
 */
import type { Finding } from '../core/envelope.js';
import { makeFinding } from '../core/rules.js';
import type { SimMetrics } from './metrics.js';
import type { PacketRun } from './packet-run.js';
import type { Topology } from './topo/types.js';

export interface FlowOutcome {
  id: number;
  src: number;
  dst: number;
  goodputGbps: number;
  fairShareGbps: number;
}

export interface PropagationStep {
  link: string;
  firstPausedUs: number;
  /** Index of the step whose pause caused this one (-1: the storm's own port). */
  parent: number;
}

/** A flow is a storm victim when links the storm paused held it this share of the storm's time in its life. */
const VICTIM_PAUSED_SHARE = 0.1;
/** Victim flows a pause-storm message names before "and N more" (chosen: the message stays readable). */
const VICTIMS_NAMED = 8;
/** Stormed queues a watchdog message names before "..." (chosen: the message stays one line). */
const WATCHDOG_QUEUES_NAMED = 6;

export function linkLabel(topology: Topology, link: number): string {
  const l = topology.links[link];
  if (!l) return `link${link}`;
  return `${topology.nodes[l.from]?.name ?? l.from}->${topology.nodes[l.to]?.name ?? l.to}`;
}

const us = (ps: number): number => ps / 1e6;
const fmtUs = (ps: number): string => `${Number(us(ps).toFixed(1))} us`;

export function pfcFindings(
  run: PacketRun,
  topology: Topology,
  flows: readonly FlowOutcome[],
  metrics: SimMetrics,
): Finding[] {
  const sim = run.sim;
  const stopPs = sim.now;
  const findings: Finding[] = [];
  // A deadlock still standing when the run stopped (the watchdog records the ones it breaks).
  if (sim.buffers.config.pfc) sim.pfc.recordDeadlocks();
  for (const d of sim.pfc.deadlocks) {
    const cycle = d.links.map((l) => linkLabel(topology, l));
    const outcome =
      d.brokenPs >= 0
        ? `broken at ${fmtUs(d.brokenPs)} by the PFC watchdog`
        : `still standing when the run stopped at ${fmtUs(stopPs)}`;
    findings.push(
      makeFinding('sim.pfc-deadlock', {
        severity: d.brokenPs >= 0 ? 'warn' : 'error',
        message:
          `PFC deadlock: ${cycle.length} paused ports wait on each other in a cycle, ${cycle.join(' -> ')} -> ${cycle[0] ?? ''}; ` +
          `formed at ${fmtUs(d.formedPs)}, ${d.connections.length} flows and ${d.stuckBytes} B stuck; ${outcome}`,
        cycle,
        formedUs: us(d.formedPs),
        detectedUs: us(d.detectedPs),
        brokenUs: d.brokenPs >= 0 ? us(d.brokenPs) : null,
        flowIds: d.connections,
        stuckBytes: d.stuckBytes,
        remediation: sim.buffers.config.pfc?.watchdog
          ? 'route without cyclic buffer dependencies (topology.routing: up-down): the watchdog breaks a deadlock by dropping, and the same traffic can form it again'
          : 'route without cyclic buffer dependencies (topology.routing: up-down), or enable switch.pfc.watchdog',
      }),
    );
  }
  if (sim.pfc.deadlocks.length > 0) metrics.pfcDeadlocks = sim.pfc.deadlocks.length;
  for (const storm of sim.pfc.pauseStorms) {
    const end = Math.min(storm.endPs, stopPs);
    const steps = propagation(run, topology, storm.link, storm.startPs, end);
    const stormLinks = steps.links.slice(1);
    const victims = [];
    for (const conn of sim.connections) {
      if (conn.src === storm.host || conn.dst === storm.host || conn.firstOfferPs < 0) continue;
      const done = conn.messageEnds.length > 0 && conn.messageHead === conn.messageEnds.length;
      const from = Math.max(storm.startPs, conn.firstOfferPs);
      const to = Math.min(end, done ? conn.lastDeliveryPs : stopPs);
      if (to <= from) continue;
      const onPath = stormLinks.filter((l) => conn.forward.includes(l));
      if (onPath.length === 0) continue;
      const pausedPs = sim.pfc.pausedUnionPs(onPath, from, to);
      if (pausedPs <= VICTIM_PAUSED_SHARE * (to - from)) continue;
      const f = flows.find((x) => x.id === conn.id);
      victims.push({
        flowId: conn.id,
        src: conn.src,
        dst: conn.dst,
        pausedUs: us(pausedPs),
        overlapUs: us(to - from),
        goodputGbps: f?.goodputGbps ?? 0,
        fairShareGbps: f?.fairShareGbps ?? 0,
      });
    }
    const list = victims.map(
      (v) =>
        `flow ${v.flowId} (h${v.src} -> h${v.dst}) paused ${v.pausedUs.toFixed(1)} of ${v.overlapUs.toFixed(1)} us`,
    );
    findings.push(
      makeFinding('sim.pause-storm', {
        severity: 'error',
        message:
          `pause storm: h${storm.host}'s NIC kept its switch port paused from ${fmtUs(storm.startPs)} ${storm.endPs <= stopPs ? `to ${fmtUs(storm.endPs)}` : 'to the end of the run'}; ` +
          `the pause spread to ${steps.steps.length - 1} more ports; ${victims.length} victim flows that do not touch h${storm.host}` +
          (list.length > 0
            ? `: ${list.slice(0, VICTIMS_NAMED).join(', ')}${list.length > VICTIMS_NAMED ? `, and ${list.length - VICTIMS_NAMED} more` : ''}`
            : ''),
        host: `h${storm.host}`,
        source: `h${storm.host}`,
        startUs: us(storm.startPs),
        endUs: Number.isFinite(storm.endPs) ? us(storm.endPs) : null,
        victims,
        propagation: steps.steps,
        remediation: sim.buffers.config.pfc?.watchdog
          ? 'find the NIC that keeps pausing; a shorter watchdog timeout shortens the spread'
          : 'enable switch.pfc.watchdog so that the stormed queue drops instead of pausing the fabric',
      }),
    );
  }
  const wd = sim.buffers.config.pfc?.watchdog;
  if (wd) {
    metrics.watchdogDrops = sim.pfc.watchdogDrops;
    metrics.watchdogTriggers = sim.pfc.watchdogEvents.map((e) => ({
      link: linkLabel(topology, e.link),
      atUs: us(e.atPs),
      flushedPackets: e.flushed,
    }));
    if (sim.pfc.watchdogEvents.length > 0) {
      const where = sim.pfc.watchdogEvents
        .slice(0, WATCHDOG_QUEUES_NAMED)
        .map((e) => `${linkLabel(topology, e.link)} at ${fmtUs(e.atPs)}`);
      findings.push(
        makeFinding('sim.pfc-watchdog', {
          severity: 'warn',
          message:
            `PFC watchdog (timeout ${fmtUs(wd.timeoutPs)}) stormed ${sim.pfc.watchdogEvents.length} queues (${where.join(', ')}${sim.pfc.watchdogEvents.length > WATCHDOG_QUEUES_NAMED ? ', ...' : ''}) ` +
            `and dropped ${sim.pfc.watchdogDrops} lossless packets`,
          drops: sim.pfc.watchdogDrops,
          triggers: sim.pfc.watchdogEvents.length,
        }),
      );
    }
  }
  return findings;
}

/**
 * How a storm's pause spread: from the port towards the storming NIC, every port whose far end
 * had a port of its own paused first (the cause), in the order they were paused during the storm.
 */
function propagation(
  run: PacketRun,
  topology: Topology,
  root: number,
  fromPs: number,
  toPs: number,
): { steps: PropagationStep[]; links: number[] } {
  const sim = run.sim;
  const first = new Map<number, number>();
  for (let link = 0; link < topology.links.length; link++) {
    const t = sim.pfc.firstPausedPs(link, fromPs, toPs);
    if (t >= 0) first.set(link, t);
  }
  const links = [root];
  const steps: PropagationStep[] = [
    { link: linkLabel(topology, root), firstPausedUs: us(first.get(root) ?? fromPs), parent: -1 },
  ];
  const index = new Map<number, number>([[root, 0]]);
  let grew = true;
  while (grew) {
    grew = false;
    const fresh: { link: number; t: number; parent: number }[] = [];
    for (const [link, t] of first) {
      if (index.has(link)) continue;
      const node = topology.links[link]?.to ?? -1;
      // The cause: the earliest-paused port out of this port's far end, paused before it.
      let parent = -1;
      let parentT = Infinity;
      for (const [cause, ct] of index) {
        const c = topology.links[cause];
        if (!c || c.from !== node || cause === (link ^ 1)) continue;
        const pt = first.get(cause) ?? fromPs;
        if (pt <= t && pt < parentT) {
          parent = ct;
          parentT = pt;
        }
      }
      if (parent >= 0) fresh.push({ link, t, parent });
    }
    fresh.sort((a, b) => a.t - b.t || a.link - b.link);
    for (const f of fresh) {
      index.set(f.link, steps.length);
      links.push(f.link);
      steps.push({ link: linkLabel(topology, f.link), firstPausedUs: us(f.t), parent: f.parent });
      grew = true;
    }
  }
  return { steps, links };
}
