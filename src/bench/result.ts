/** The result envelope of `aifabric bench tcp --json`: the same rows as the table, unrounded. */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import type { RankRunResult } from './runner.js';
import type { BenchOp, BenchParams, BenchRow, RankInfo } from './types.js';

export interface BenchTcpMetrics {
  op: string;
  nranks: number;
  rows: BenchRow[];
  outOfBounds: number;
  avgBusbwGBps: number;
}

export function benchResult(
  params: BenchParams,
  run: RankRunResult,
  launcher: string,
  ifname?: string,
  ops: readonly BenchOp[] = [params.op],
): ResultEnvelope<BenchTcpMetrics> {
  const ranks: Pick<RankInfo, 'rank' | 'host' | 'pid'>[] = run.peers.map(({ rank, host, pid }) => ({
    rank,
    host,
    pid,
  }));
  return makeResult(
    'bench.tcp',
    {
      ...params,
      ...(ops.length > 1 ? { ops } : {}),
      nranks: run.size,
      launcher,
      ifname: ifname ?? null,
      ranks,
    },
    {
      op: ops.join(','),
      nranks: run.size,
      rows: run.rows,
      outOfBounds: run.outOfBounds,
      avgBusbwGBps: run.avgBusbwGBps,
    },
  );
}
