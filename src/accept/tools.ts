/**
 * The tool adapters `accept` runs for real here (issue 11, "Tool adapters"): the argv of each run,
 * built as an array (never a shell string), and what its output says. iperf3 (3.x, `-J`: the
 * fields read are `end.sum_received.bits_per_second`, `end.sum_sent.bytes` and
 * `end.sum_sent.retransmits`, as iperf3's src/iperf_api.c writes them) for host pairs, and
 * `aifabric bench tcp --json` (this project's result envelope) for collectives over a set of hosts;
 * perftest's `ib_write_bw` for host pairs over one HCA (a rail), read with the project's perftest
 * parser (it cannot run here: no RDMA device; tested on captured outputs).
 */
import { parseNcclTests, parsePerftest } from '../parse/index.js';

/** Ethernet goodput of one TCP stream at MTU 1500 with timestamps: 1448 payload bytes per 1514-byte frame (the shaper counts frames from the MAC header on). */
export const TCP_GOODPUT_1500 = 1448 / 1514;

export function iperf3ServerArgv(bindAddress: string, port: number): string[] {
  return ['iperf3', '-s', '-1', '-B', bindAddress, '-p', String(port)];
}

export function iperf3ClientArgv(
  server: string,
  bindAddress: string,
  port: number,
  seconds: number,
): string[] {
  return ['iperf3', '-c', server, '-B', bindAddress, '-p', String(port), '-t', String(seconds), '-J'];
}

export interface Iperf3Figures {
  /** Received rate, Gb/s. */
  rateGbps: number;
  bytes: number;
  retransmits: number | null;
}

/** The figures of an iperf3 `-J` client run, or a one-line reason it has none. */
export function readIperf3Json(stdout: string): Iperf3Figures | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return 'iperf3 printed no JSON';
  }
  const root = parsed as {
    error?: unknown;
    end?: {
      sum_received?: { bits_per_second?: unknown };
      sum_sent?: { bytes?: unknown; retransmits?: unknown };
    };
  };
  if (typeof root.error === 'string') return `iperf3: ${root.error}`;
  const bps = root.end?.sum_received?.bits_per_second;
  if (typeof bps !== 'number' || !Number.isFinite(bps))
    return 'iperf3 JSON without end.sum_received.bits_per_second';
  const bytes = root.end?.sum_sent?.bytes;
  const retransmits = root.end?.sum_sent?.retransmits;
  return {
    rateGbps: bps / 1e9,
    bytes: typeof bytes === 'number' ? bytes : 0,
    retransmits: typeof retransmits === 'number' ? retransmits : null,
  };
}

/**
 * bench tcp's `--settle` in acceptance runs: shorter than its 1 s default, since each host is judged
 * against the others measured the same way and a stage runs it once or twice per host, yet long
 * enough that the timed iterations do not hold the ranks' first compiles (src/bench/settle.ts).
 */
export const ACCEPT_SETTLE = '300ms';

/** `aifabric bench tcp` all_reduce over the ranks the launcher starts, checked (`-c 1`), as JSON. */
export function benchTcpArgv(
  benchCommand: readonly string[],
  sizeBytes: number,
  iters: number,
  timeoutS: number,
): string[] {
  return [
    ...benchCommand,
    'bench',
    'tcp',
    '--op',
    'all_reduce',
    '-b',
    String(sizeBytes),
    '-e',
    String(sizeBytes),
    '-n',
    String(iters),
    '-w',
    '2',
    '--settle',
    ACCEPT_SETTLE,
    '-c',
    '1',
    '--timeout',
    String(timeoutS),
    '--json',
  ];
}

export interface BenchTcpFigures {
  busbwGBps: number;
  wrong: number;
}

/** Rank 0's `bench tcp --json` envelope: the out-of-place busbw of its one row and the #wrong of both. */
export function readBenchTcpJson(stdout: string): BenchTcpFigures | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return 'bench tcp printed no JSON';
  }
  const rows = (parsed as { metrics?: { rows?: unknown } }).metrics?.rows;
  if (!Array.isArray(rows) || rows.length === 0) return 'bench tcp JSON without rows';
  const row = rows[0] as {
    outOfPlace?: { busbwGBps?: unknown; wrong?: unknown };
    inPlace?: { wrong?: unknown };
  };
  const busbw = row.outOfPlace?.busbwGBps;
  if (typeof busbw !== 'number') return 'bench tcp row without busbwGBps';
  const wrong = [row.outOfPlace?.wrong, row.inPlace?.wrong].reduce<number>(
    (sum, value) => sum + (typeof value === 'number' ? value : 0),
    0,
  );
  return { busbwGBps: busbw, wrong };
}

/** The first line of a tool's output, for one-line evidence. */
export const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

/** perftest message size: large enough that a pair runs at the link's rate, as SuperBench's ib_write_bw check does (8 MiB there; 1 MiB is past the knee on 100-400G). */
export const PERFTEST_BYTES = 1 << 20;

/**
 * `ib_write_bw` on one HCA for `seconds` (`-D`), 1 MiB messages, rates in Gb/s (`--report_gbits`),
 * no warm-up check of the CPU clock (`-F`), GID index `-x` where RoCE needs one; the client
 * names the server's address last.
 */
export function perftestServerArgv(hca: string, port: number, seconds: number, gidIndex?: number): string[] {
  return [
    'ib_write_bw',
    '-d',
    hca,
    '-p',
    String(port),
    '-F',
    '--report_gbits',
    '-s',
    String(PERFTEST_BYTES),
    '-D',
    String(seconds),
    ...(gidIndex !== undefined ? ['-x', String(gidIndex)] : []),
  ];
}

export function perftestClientArgv(
  server: string,
  hca: string,
  port: number,
  seconds: number,
  gidIndex?: number,
): string[] {
  return [...perftestServerArgv(hca, port, seconds, gidIndex), server];
}

/**
 * Wire bytes per packet beyond the payload: RoCE v2 82 (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
 * ICRC 4 + FCS 4 + preamble 8 + gap 12; IBTA Annex A17, IEEE 802.3), InfiniBand 26 (LRH 8 + BTH 12 +
 * ICRC 4 + VCRC 2; IBTA vol. 1), as the fabric presets count them (src/spec/presets/fabric-sources.ts).
 */
const RDMA_FRAMING_BYTES = { Ethernet: 82, IB: 26 } as const;

export interface PerftestFigures {
  /** BW average of the run, Gb/s. */
  rateGbps: number;
  /** Share of the line rate RDMA write payload can reach at the run's MTU and link type. */
  wireEfficiency: number;
}

/** The figures of an `ib_write_bw` client run, or a one-line reason it has none. */
export function readPerftest(stdout: string): PerftestFigures | string {
  let runs;
  try {
    runs = parsePerftest(stdout).facts.runs;
  } catch {
    // Not perftest's output at all (a connection error, a missing device): its first line says why.
    return `ib_write_bw printed no bandwidth test${firstLine(stdout) ? `: ${firstLine(stdout)}` : ''}`;
  }
  const run = runs.find((candidate) => candidate.measure === 'bandwidth');
  if (!run) return 'ib_write_bw printed no bandwidth test';
  if (run.peakBwAverageGbps === null) return 'ib_write_bw printed no bandwidth row';
  const mtu = run.header.mtuBytes ?? 4096;
  const framing = run.header.linkType === 'IB' ? RDMA_FRAMING_BYTES.IB : RDMA_FRAMING_BYTES.Ethernet;
  return { rateGbps: run.peakBwAverageGbps, wireEfficiency: mtu / (mtu + framing) };
}

/**
 * nccl-tests' all_reduce_perf over every GPU of the hosts, one rank per GPU (`-g 1`), checked
 * (`-c 1`), 8 B to 1 GiB doubling, nccl-tests' default iterations; NCCL_DEBUG=INFO so that the
 * transport NCCL chose is in the output (`via NET/IB/0/GDRDMA`, or a silent fall-back to
 * `NET/Socket`).
 */
export function ncclTestsArgv(binaryDir?: string): string[] {
  const binary = binaryDir ? `${binaryDir.replace(/\/+$/, '')}/all_reduce_perf` : 'all_reduce_perf';
  return [binary, '-b', '8', '-e', '1G', '-f', '2', '-g', '1', '-c', '1'];
}

export const NCCL_TESTS_ENV: Record<string, string> = { NCCL_DEBUG: 'INFO', NCCL_DEBUG_SUBSYS: 'INIT,NET' };

export interface NcclTestsFigures {
  /** Out-of-place busbw at the largest size, GB/s. */
  busbwGBps: number;
  sizeBytes: number;
  wrong: number;
  ranks: number;
  /** Each host's network transports as its NCCL INFO lines name them (`NET/IB`, `NET/Socket`, `NET/OFI`...). */
  transports: Record<string, string[]>;
}

// `host:pid:tid [dev] NCCL INFO ... via NET/IB/0/GDRDMA` or `... NCCL INFO NET/Socket : Using [0]eth0:...`
const NCCL_NET_LINE =
  /^(?:\[[^\]]*\]<\w+>:)?\s*([^\s:]+):\d+:\d+ \[\d+\] NCCL INFO (?:.*\bvia (NET\/[A-Za-z]+)|(NET\/[A-Za-z]+) : Using\b)/;

/** What an all_reduce_perf run printed, or a one-line reason it printed nothing usable. */
export function readNcclTests(stdout: string): NcclTestsFigures | string {
  let tests;
  try {
    tests = parseNcclTests(stdout).facts.tests;
  } catch {
    return `all_reduce_perf printed no nccl-tests table${firstLine(stdout) ? `: ${firstLine(stdout)}` : ''}`;
  }
  // An nccl-tests built without MPI runs every rank as its own one-rank job: one header per rank.
  if (tests.length > 1)
    return `${tests.length} nccl-tests headers in one run: each rank ran alone (nccl-tests built without MPI=1?)`;
  const test = tests[0];
  const last = test?.rows[test.rows.length - 1];
  if (!test || !last) return 'all_reduce_perf printed no rows';
  const wrong = test.rows.reduce(
    (sum, row) => sum + (row.outOfPlace.wrong ?? 0) + (row.inPlace.wrong ?? 0),
    0,
  );
  const transports: Record<string, string[]> = {};
  for (const line of stdout.split('\n')) {
    const match = NCCL_NET_LINE.exec(line);
    if (!match) continue;
    const host = match[1]!;
    const net = (match[2] ?? match[3])!;
    transports[host] = [...new Set([...(transports[host] ?? []), net])];
  }
  return {
    busbwGBps: last.outOfPlace.busbwGBps,
    sizeBytes: last.sizeBytes,
    wrong,
    ranks: test.ranks ?? test.devices.length,
    transports,
  };
}

/**
 * Host limits RDMA collectives need, as NVIDIA's NGC containers are started for them
 * (`--shm-size=1g --ulimit memlock=-1`: NCCL's shared-memory transport maps segments in /dev/shm,
 * whose Docker and Kubernetes default is 64 MiB, and registering RDMA buffers pins memory against
 * RLIMIT_MEMLOCK). Each read is a fixed command (no input in it).
 */
export const MEMLOCK_ARGV = ['sh', '-c', 'ulimit -l'];
export const SHM_ARGV = ['df', '-Pk', '/dev/shm'];
export const CLOCK_ARGV = ['date', '+%s.%N'];
export const MIN_SHM_BYTES = 1 << 30;
/** Beyond this, after the launch's own round trip, hosts' clocks disagree enough to misorder traces and logs (NTP keeps well-run hosts within milliseconds). */
export const MAX_CLOCK_OFFSET_S = 1;

/** `ulimit -l`: Infinity for unlimited, else bytes (the shell prints KiB); null when unreadable. */
export function readMemlock(stdout: string): number | null {
  const text = stdout.trim();
  if (text === 'unlimited') return Number.POSITIVE_INFINITY;
  return /^\d+$/.test(text) ? Number(text) * 1024 : null;
}

/** `df -Pk /dev/shm`: the filesystem's size in bytes, or null. */
export function readShmBytes(stdout: string): number | null {
  const fields = stdout.trim().split('\n')[1]?.trim().split(/\s+/);
  const kib = fields?.[1];
  return kib !== undefined && /^\d+$/.test(kib) ? Number(kib) * 1024 : null;
}

/** `date +%s.%N`: seconds since the epoch, or null. */
export function readClock(stdout: string): number | null {
  const text = stdout.trim();
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : null;
}

/** `aifabric check --live --json` on a host: the acceptance checklist over what the host shows. */
export function checkLiveArgv(benchCommand: readonly string[]): string[] {
  return [...benchCommand, 'check', '--live', '--json'];
}

/** Check families that concern RDMA (ports, GIDs, GPUDirect, PFC/ECN): judged only when an RDMA tool runs. */
const RDMA_FAMILIES = new Set(['rdma', 'gdr', 'lossless']);

export interface LiveFinding {
  ruleId: string;
  message: string;
  /** Whether it concerns RDMA (rdma, gdr, lossless families). */
  rdma: boolean;
}

/** The error findings of a `check --live --json` envelope; an unreadable output gives none. */
export function readCheckLive(stdout: string): LiveFinding[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return [];
  }
  const findings = (parsed as { findings?: unknown }).findings;
  if (!Array.isArray(findings)) return [];
  return findings.flatMap((finding): LiveFinding[] => {
    const f = finding as { severity?: unknown; ruleId?: unknown; message?: unknown; family?: unknown };
    if (f.severity !== 'error' || typeof f.ruleId !== 'string') return [];
    return [
      {
        ruleId: f.ruleId,
        message: typeof f.message === 'string' ? f.message : '',
        rdma: typeof f.family === 'string' && RDMA_FAMILIES.has(f.family),
      },
    ];
  });
}
