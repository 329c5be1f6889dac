/**
 * Simulator state -> the result envelope's metrics, series and findings. Metrics always carry
 * goodputGbps, drops, completionTimeUs (null when the run did not finish: `completed: false`) and
 * events; series are sampled (queue occupancy of the
 * busiest ports, pause timelines, goodput per time bin) and per-rank step times for collectives.
 */
import type { Finding, Series } from '../core/envelope.js';
import { makeFinding } from '../core/rules.js';
import { quantile } from '../core/stats.js';
import { formatDuration } from '../core/units.js';
import { maxMinFairShares } from './fair-share.js';
import type { SimMetrics } from './metrics.js';
import type { PacketRun } from './packet-run.js';
import { pfcFindings } from './pfc-findings.js';
import type { Topology } from './topo/types.js';

export interface PacketReport {
  metrics: SimMetrics;
  series: Series[];
  findings: Finding[];
  warnings: string[];
}

/** Ports that get a queue or pause series: the busiest by peak queue and the most paused (chosen: a readable chart). */
const TOP_PORTS = 4;
/** Ports listed in metrics.ports from each ranking, peak queue and paused time (chosen: a readable table). */
const PORTS_PER_RANKING = 8;
/** Flows in metrics.flows at most (chosen: keeps the JSON of a large all-to-all to a few hundred KB). */
const MAX_FLOWS_IN_METRICS = 1000;
/**
 * sim.pfc-victim (docs/simulator.md): a flow whose path was paused for more than this share of its
 * life and that got less than VICTIM_GOODPUT_SHARE of its max-min fair share. Chosen: paused long
 * enough to matter, and slowed well beyond what sharing its own bottleneck explains.
 */
const VICTIM_PATH_PAUSED_SHARE = 0.1;
const VICTIM_GOODPUT_SHARE = 0.8;

function linkName(topology: Topology, link: number): string {
  const l = topology.links[link];
  if (!l) return `link${link}`;
  return `${topology.nodes[l.from]?.name ?? l.from}->${topology.nodes[l.to]?.name ?? l.to}`;
}

export function buildPacketReport(run: PacketRun, topology: Topology): PacketReport {
  const { sim, workloads } = run;
  const linkCount = topology.links.length;
  const completed = run.status === 'done';
  // Where the run stopped: the last event, or maxTime (the simulator leaves its clock there).
  const stopPs = sim.now;
  let start = Infinity;
  let finish = 0;
  for (const w of workloads) {
    if (w.startPs >= 0) start = Math.min(start, w.startPs);
    finish = Math.max(finish, w.finishPs);
  }
  if (!Number.isFinite(start)) start = 0;
  // A run that did not finish has no completion time; its goodput is over the time it ran.
  const elapsedPs = Math.max(0, (completed ? finish : stopPs) - start);
  // Flow completion times per message (a block, a chunk, a flow): offered to fully delivered.
  const fcts = sim.messageFctPs.map((ps) => ps / 1e6);
  let unfinishedMessages = 0;
  for (const conn of sim.connections) unfinishedMessages += conn.messageEnds.length - conn.messageHead;
  let pausedLinkPs = 0;
  let peakQueue = 0;
  const allLinks: number[] = [];
  for (let link = 0; link < linkCount; link++) {
    pausedLinkPs += sim.pfc.pausedNow(link);
    allLinks.push(link);
    if (topology.nodes[topology.links[link]?.from ?? 0]?.kind === 'switch')
      peakQueue = Math.max(peakQueue, sim.peakPortBytes[link]!);
  }
  // Busiest ports by peak queue, and most paused links.
  const switchPorts = [...Array(linkCount).keys()].filter(
    (l) => topology.nodes[topology.links[l]?.from ?? 0]?.kind === 'switch',
  );
  const byPeak = switchPorts
    .filter((l) => sim.peakPortBytes[l]! > 0)
    .sort((a, b) => sim.peakPortBytes[b]! - sim.peakPortBytes[a]! || a - b);
  const byPause = [...Array(linkCount).keys()]
    .filter((l) => sim.pfc.pausedNow(l) > 0)
    .sort((a, b) => sim.pfc.pausedNow(b) - sim.pfc.pausedNow(a) || a - b);
  const reports = workloads.map((w) => w.report(stopPs));
  const metrics: SimMetrics = {
    status: run.status,
    completed,
    goodputGbps: elapsedPs > 0 ? (sim.deliveredBytes * 8) / (elapsedPs / 1e12) / 1e9 : 0,
    drops: sim.drops,
    completionTimeUs: completed ? elapsedPs / 1e6 : null,
    events: sim.events,
    packetHops: sim.packetHops,
    bytesOfferedByApp: sim.offeredBytes,
    bytesDelivered: sim.deliveredBytes,
    losslessDrops: sim.losslessDrops,
    retransmittedPackets: sim.counters.retransmittedPackets,
    timeouts: sim.counters.timeouts,
    ecnMarks: sim.ecnMarks,
    cnps: sim.counters.cnps,
    pauseFrames: sim.pfc.pauseFramesSent,
    // A duration: time during which at least one link of the fabric was paused.
    pausedTimeUs: sim.pfc.pausedUnionPs(allLinks, 0, stopPs) / 1e6,
    // A sum over links (link-microseconds): two links paused for the same 1 us give 2.
    pausedLinkUs: pausedLinkPs / 1e6,
    peakQueueBytes: peakQueue,
    peakPacketsInFlight: sim.pool.peakInUse,
    simulatedTimeUs: sim.now / 1e6,
    fctUs:
      fcts.length > 0
        ? {
            messages: fcts.length,
            p50: quantile(fcts, 0.5),
            p99: quantile(fcts, 0.99),
            max: fcts.reduce((a, b) => Math.max(a, b), 0),
          }
        : null,
    unfinishedMessages,
    ports: [...new Set([...byPause.slice(0, PORTS_PER_RANKING), ...byPeak.slice(0, PORTS_PER_RANKING)])].map(
      (link) => ({
        link: linkName(topology, link),
        peakQueueBytes: sim.peakPortBytes[link]!,
        pausedTimeUs: sim.pfc.pausedNow(link) / 1e6,
        pauseFramesReceived: sim.pfc.pauseFrames[link]!,
        drops: sim.dropsByLink[link]!,
      }),
    ),
    workloads: workloads.map((w, i) => ({ name: w.name, kind: w.kind, ...reports[i]?.metrics })),
  };
  const series: Series[] = [];
  const findings: Finding[] = [];
  const warnings: string[] = [];
  const s = sim.sampler;
  for (const link of byPeak.slice(0, TOP_PORTS)) {
    const points = [];
    for (let i = 0; i < s.count; i++)
      points.push({ timeUs: s.times[i]! / 1e6, bytes: s.queues[i * linkCount + link]! });
    series.push({ name: `queue ${linkName(topology, link)}`, unit: 'bytes', points });
  }
  for (const link of byPause.slice(0, TOP_PORTS)) {
    const points = [];
    for (let i = 1; i < s.count; i++) {
      const dt = s.times[i]! - s.times[i - 1]!;
      const dp = s.paused[i * linkCount + link]! - s.paused[(i - 1) * linkCount + link]!;
      points.push({ timeUs: s.times[i]! / 1e6, pausedFraction: dt > 0 ? dp / dt : 0 });
    }
    series.push({ name: `paused ${linkName(topology, link)}`, unit: 'fraction of time', points });
  }
  const goodput = [];
  for (let i = 1; i < s.count; i++) {
    const dt = s.times[i]! - s.times[i - 1]!;
    const db = s.delivered[i]! - s.delivered[i - 1]!;
    goodput.push({
      timeUs: s.times[i]! / 1e6,
      goodputGbps: dt > 0 ? (db * 8) / (dt / 1e12) / 1e9 : 0,
    });
  }
  series.push({ name: 'goodput', unit: 'Gb/s', points: goodput });
  for (const r of reports) if (r.series) series.push(...r.series);
  // Per-connection outcomes and PFC victims: flows paused on their path that got well under
  // their max-min fair share although no bottleneck of theirs was congested.
  const shares = maxMinFairShares(
    topology,
    sim.connections.map((c) => c.forward),
  );
  const flows = sim.connections.map((conn, i) => {
    // A flow lives from the application's first offer to its last message's delivery (or the stop).
    const done = conn.messageEnds.length > 0 && conn.messageHead === conn.messageEnds.length;
    const begin = conn.firstOfferPs;
    const end = done ? conn.lastDeliveryPs : stopPs;
    const duration = begin >= 0 && end > begin ? end - begin : 0;
    const goodputGbps = duration > 0 ? (conn.delivered * 8) / (duration / 1e12) / 1e9 : 0;
    const fairShareGbps = ((shares[i] ?? 0) * conn.payloadRateBps(1)) / 1e9;
    return {
      id: conn.id,
      src: conn.src,
      dst: conn.dst,
      transport: conn.transport,
      completed: done,
      bytesDelivered: conn.delivered,
      goodputGbps,
      fairShareGbps,
      // Time during its life when at least one link of its path was paused (a union, <= durationUs).
      pathPausedUs: duration > 0 ? sim.pfc.pausedUnionPs(conn.forward, begin, end) / 1e6 : 0,
      durationUs: duration / 1e6,
      retransmittedPackets: conn.retransmittedPackets,
      timeouts: conn.timeouts,
    };
  });
  for (const f of flows) {
    if (
      f.pathPausedUs > VICTIM_PATH_PAUSED_SHARE * f.durationUs &&
      f.goodputGbps < VICTIM_GOODPUT_SHARE * f.fairShareGbps &&
      f.durationUs > 0
    ) {
      findings.push(
        makeFinding('sim.pfc-victim', {
          severity: 'warn',
          message: `flow ${f.id} (h${f.src} -> h${f.dst}) is a PFC victim: ${f.goodputGbps.toFixed(1)} Gb/s against a fair share of ${f.fairShareGbps.toFixed(1)} Gb/s, its path paused ${f.pathPausedUs.toFixed(1)} us of its ${f.durationUs.toFixed(1)} us`,
          flowId: f.id,
          goodputGbps: f.goodputGbps,
          fairShareGbps: f.fairShareGbps,
          pathPausedUs: f.pathPausedUs,
          durationUs: f.durationUs,
        }),
      );
    }
  }
  metrics.pfcVictims = findings.filter((f) => f.ruleId === 'sim.pfc-victim').length;
  findings.push(...pfcFindings(run, topology, flows, metrics));
  metrics.flows = flows.length <= MAX_FLOWS_IN_METRICS ? flows : flows.slice(0, MAX_FLOWS_IN_METRICS);
  if (sim.losslessDrops > 0) {
    findings.push(
      makeFinding('sim.lossless-drops', {
        severity: 'error',
        message: `${sim.losslessDrops} packets dropped in the lossless class: PFC headroom is below the bound`,
      }),
    );
  }
  if (!completed) {
    const where =
      run.status === 'time-limit'
        ? `stopped at maxTime ${formatDuration(run.maxTimePs / 1e12)}`
        : `stalled at ${formatDuration(stopPs / 1e12)} with nothing left to do`;
    for (const w of workloads) {
      const p = w.progress();
      if (p.finished < p.total)
        warnings.push(`${where}: ${p.finished} of ${p.total} ${p.unit} finished (${w.name})`);
    }
  }
  if (sim.offeredBytes !== sim.deliveredBytes)
    warnings.push(`delivered ${sim.deliveredBytes} B of ${sim.offeredBytes} B offered`);
  return { metrics, series, findings, warnings };
}
