/**
 * A test-only loader for the DLRM Kineto tarball (facebookresearch/param@1e115ff
 * et_replay/tests/inputs/dlrm_kineto.tar.gz): ustar members read by hand, each rank's kernels mapped
 * onto TraceRankFacts the simple way (NCCL kernels in time order on one default group, non-NCCL
 * kernels as compute, ProfilerStep# CPU annotations as steps). It stands in for src/parse's
 * `readTraceFiles` until that exists, and gives the engine tests facts independent of the reader.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { TraceCollective, TraceRankFacts } from '../../src/parse/trace-types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DLRM_TARBALL = path.resolve(here, '../../../shared/data/traces/param/dlrm_kineto.tar.gz');

/** Regular files of a (gzipped) ustar archive: 512-byte headers, name at 0, octal size at 124, type at 156. */
export function tarMembers(gz: Buffer): { name: string; data: Buffer }[] {
  const tar = gunzipSync(gz);
  const out: { name: string; data: Buffer }[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, len: number): string =>
      header
        .subarray(from, from + len)
        .toString('latin1')
        .replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    if (type === '0' || type === '') out.push({ name, data: tar.subarray(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

interface KinetoEvent {
  ph?: string;
  cat?: string;
  name?: string;
  ts?: number;
  dur?: number;
}

function opOf(kernel: string): string {
  if (kernel.includes('SendRecv')) return 'sendrecv';
  if (kernel.includes('AllReduce')) return 'all_reduce';
  return 'Generic';
}

function merge(pairs: [number, number][]): number[] {
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [a, b] of pairs) {
    if (out.length > 0 && a <= out[out.length - 1]!) out[out.length - 1] = Math.max(out[out.length - 1]!, b);
    else out.push(a, b);
  }
  return out;
}

export function loadDlrmFacts(): TraceRankFacts[] {
  const facts: TraceRankFacts[] = [];
  for (const member of tarMembers(readFileSync(DLRM_TARBALL))) {
    if (!member.name.endsWith('.json')) continue;
    const trace = JSON.parse(member.data.toString('utf8')) as {
      distributedInfo: { rank: number; world_size: number };
      deviceProperties?: { name: string }[];
      traceEvents: KinetoEvent[];
    };
    const x = trace.traceEvents.filter(
      (e) => e.ph === 'X' && typeof e.ts === 'number' && typeof e.dur === 'number',
    );
    const kernels = x.filter((e) => e.cat === 'kernel');
    const nccl = kernels.filter((e) => (e.name ?? '').startsWith('nccl')).sort((a, b) => a.ts! - b.ts!);
    const steps = x
      .filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name ?? ''))
      .map((e) => ({
        step: Number(e.name!.slice('ProfilerStep#'.length)),
        startUs: e.ts!,
        endUs: e.ts! + e.dur!,
      }));
    const stepAt = (t: number): number | null =>
      steps.find((s) => t >= s.startUs && t < s.endUs)?.step ?? null;
    const collectives: TraceCollective[] = nccl.map((e, seq) => ({
      seq,
      group: 'default',
      groupDesc: null,
      groupRanks: null,
      groupSize: null,
      op: opOf(e.name!),
      name: e.name!,
      startUs: e.ts!,
      durUs: e.dur!,
      sizeBytes: null,
      dtype: null,
      algo: null,
      proto: null,
      step: stepAt(e.ts!),
    }));
    facts.push({
      format: 'kineto',
      file: `dlrm_kineto.tar.gz:${member.name}`,
      rank: trace.distributedInfo.rank,
      rankSource: 'distributedInfo',
      worldSize: trace.distributedInfo.world_size,
      host: null,
      device: trace.deviceProperties?.[0]?.name ?? null,
      hasGpu: kernels.length > 0,
      ncclVersion: null,
      collectives,
      steps,
      computeBusy: merge(
        kernels.filter((e) => !(e.name ?? '').startsWith('nccl')).map((e) => [e.ts!, e.ts! + e.dur!]),
      ),
      counts: { events: trace.traceEvents.length, kernels: kernels.length, ncclKernels: nccl.length },
    });
  }
  return facts;
}
