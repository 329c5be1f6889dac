/**
 * The metrics of a simulation result, one type for both modes. Every run carries the common
 * fields (status, goodput, drops, completion time, events, bytes, one entry per workload); what
 * only packets have (queues, pauses, retransmissions, per-connection outcomes) is present in packet
 * mode only, and the flow-level engine's own counters in fluid mode only.
 */
import type { FluidResult } from './fluid/index.js';

export type SimStatus = 'done' | 'stalled' | 'time-limit';

/** One workload's figures: name and kind always; the rest follows the workload kind and mode. */
export type SimWorkloadMetrics = { name: string; kind: string } & Record<string, unknown>;

/** One connection's outcome (packet mode; the first 1,000 connections). */
export interface SimFlowOutcome {
  id: number;
  src: number;
  dst: number;
  transport: string;
  completed: boolean;
  bytesDelivered: number;
  goodputGbps: number;
  fairShareGbps: number;
  pathPausedUs: number;
  durationUs: number;
  retransmittedPackets: number;
  timeouts: number;
}

export interface SimPortMetrics {
  link: string;
  peakQueueBytes: number;
  pausedTimeUs: number;
  pauseFramesReceived: number;
  drops: number;
}

// A type alias, not an interface, so that it is a Record<string, unknown> for the envelope.
export type SimMetrics = {
  status: SimStatus;
  completed: boolean;
  goodputGbps: number;
  drops: number;
  /** null when the run did not finish (packet mode: stalled or stopped at maxTime). */
  completionTimeUs: number | null;
  /** Packet mode: discrete events; fluid mode: flow starts, ends and rate recomputations. */
  events: number;
  bytesOfferedByApp: number;
  bytesDelivered: number;
  workloads: SimWorkloadMetrics[];

  // Packet mode only.
  packetHops?: number;
  losslessDrops?: number;
  retransmittedPackets?: number;
  timeouts?: number;
  ecnMarks?: number;
  cnps?: number;
  pauseFrames?: number;
  /** A duration: time during which at least one link of the fabric was paused. */
  pausedTimeUs?: number;
  /** A sum over links (link-microseconds). */
  pausedLinkUs?: number;
  peakQueueBytes?: number;
  peakPacketsInFlight?: number;
  simulatedTimeUs?: number;
  fctUs?: { messages: number; p50: number; p99: number; max: number } | null;
  unfinishedMessages?: number;
  ports?: SimPortMetrics[];
  pfcVictims?: number;
  pfcDeadlocks?: number;
  watchdogDrops?: number;
  watchdogTriggers?: { link: string; atUs: number; flushedPackets: number }[];
  flows?: SimFlowOutcome[];

  // Fluid mode only.
  flowCount?: number;
  rateRecomputations?: number;
  maxConcurrentFlows?: number;
};

/** The envelope's metrics of a fluid run that moved `totalBytes` in `elapsedNs`. */
export function fluidMetrics(
  result: FluidResult,
  totalBytes: number,
  elapsedNs: number,
  workloads: SimMetrics['workloads'],
): SimMetrics {
  return {
    status: 'done',
    completed: true,
    goodputGbps: elapsedNs > 0 ? (totalBytes * 8) / elapsedNs : 0,
    drops: 0,
    completionTimeUs: elapsedNs / 1e3,
    events: result.events,
    bytesOfferedByApp: totalBytes,
    bytesDelivered: totalBytes,
    flowCount: result.flowCount,
    rateRecomputations: result.rateRecomputations,
    maxConcurrentFlows: result.maxConcurrentFlows,
    workloads,
  };
}
