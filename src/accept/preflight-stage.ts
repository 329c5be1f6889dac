/**
 * accept's `preflight` stage: on every host at once, whether it answers (`ip -j link show`, and the
 * MTU of each interface that is up), whether the tools are there, `check --live` where aifabric
 * runs, the limits RDMA needs (`ulimit -l`, /dev/shm) and its clock against ours. A host that does
 * not answer joins `unreachable`; each host's problems become one run and, if any, one outcome.
 */
import { median } from '../core/stats.js';
import type { HostOutcome } from './attribute.js';
import type { AcceptLauncher, AcceptOptions } from './engine.js';
import {
  checkLiveArgv,
  CLOCK_ARGV,
  firstLine,
  MAX_CLOCK_OFFSET_S,
  MEMLOCK_ARGV,
  MIN_SHM_BYTES,
  readCheckLive,
  readClock,
  readMemlock,
  readShmBytes,
  SHM_ARGV,
} from './tools.js';
import type { AcceptRun, AcceptStage, AcceptTool, AcceptVerdict } from './types.js';

export interface PreflightContext {
  launcher: AcceptLauncher;
  options: AcceptOptions;
  /** Filled with the hosts that did not answer. */
  unreachable: Set<string>;
  runs: AcceptRun[];
  stages: AcceptStage[];
  warnings: string[];
  hostOutcomes: HostOutcome[];
}

export async function preflightStage(ctx: PreflightContext): Promise<void> {
  const { launcher, options, unreachable, runs, stages, warnings, hostOutcomes } = ctx;
  const hosts = launcher.hosts;
  const names = hosts.map((host) => host.name);
  const versionArgv = (tool: AcceptTool): string[] =>
    tool === 'iperf3'
      ? ['iperf3', '--version']
      : tool === 'perftest'
        ? ['ib_write_bw', '--version']
        : [...options.benchCommand, '--version'];
  const tools = options.tools
    .filter((tool) => tool !== 'nccl-tests')
    .map((tool) => ({ tool, argv: versionArgv(tool) }));
  const checks = await Promise.all(
    hosts.map(async (_host, index) => {
      const link = await launcher.exec(index, ['ip', '-j', 'link', 'show'], { timeoutS: 10 });
      const missing: string[] = [];
      for (const { tool, argv } of tools) {
        const result = await launcher.exec(index, argv, { timeoutS: 10 });
        if (result.exitCode !== 0)
          missing.push(
            tool === 'iperf3' ? 'iperf3' : tool === 'perftest' ? 'ib_write_bw (perftest)' : 'aifabric',
          );
      }
      // The acceptance checklist on what the host shows, where aifabric is there to run it.
      const live = options.tools.includes('bench-tcp')
        ? readCheckLive(
            (await launcher.exec(index, checkLiveArgv(options.benchCommand), { timeoutS: 60 })).stdout,
          )
        : [];
      const memlock = await launcher.exec(index, MEMLOCK_ARGV, { timeoutS: 10 });
      const shm = await launcher.exec(index, SHM_ARGV, { timeoutS: 10 });
      // The host's clock against ours at the middle of the launch's round trip.
      const before = Date.now() / 1000;
      const clock = await launcher.exec(index, CLOCK_ARGV, { timeoutS: 10 });
      const after = Date.now() / 1000;
      const remote = clock.exitCode === 0 ? readClock(clock.stdout) : null;
      return {
        link,
        missing,
        live,
        mtus: interfaceMtus(link.stdout),
        memlockBytes: memlock.exitCode === 0 ? readMemlock(memlock.stdout) : null,
        shmBytes: shm.exitCode === 0 ? readShmBytes(shm.stdout) : null,
        clockOffsetS:
          remote !== null
            ? { offset: remote - (before + after) / 2, uncertainty: (after - before) / 2 }
            : null,
      };
    }),
  );
  const mtuOf = checks.map((check) =>
    check.mtus.length > 0 ? Math.max(...check.mtus.map((m) => m.mtu)) : null,
  );
  const fleetMtu = median(mtuOf.filter((mtu): mtu is number => mtu !== null));
  checks.forEach((check, index) => {
    const host = names[index]!;
    const argv = launcher.reproduce(index, ['ip', '-j', 'link', 'show']);
    const problems: string[] = [];
    if (check.link.exitCode !== 0) {
      unreachable.add(host);
      problems.push(`did not answer (${firstLine(check.link.stderr) || `exit ${check.link.exitCode}`})`);
    }
    if (check.missing.length > 0) problems.push(`missing ${check.missing.join(', ')}`);
    // RDMA tools need pinned memory and NCCL's /dev/shm segments; for TCP tools these are only noted.
    const rdma = options.tools.includes('perftest') || options.tools.includes('nccl-tests');
    const limits: string[] = [];
    if (check.memlockBytes !== null && check.memlockBytes !== Number.POSITIVE_INFINITY)
      limits.push(
        `ulimit -l ${Math.round(check.memlockBytes / 1024)} KiB (RDMA pins its buffers: unlimited is what NVIDIA's containers set)`,
      );
    if (check.shmBytes !== null && check.shmBytes < MIN_SHM_BYTES)
      limits.push(
        `/dev/shm ${(check.shmBytes / 2 ** 20).toFixed(0)} MiB (NCCL's shared-memory transport: at least 1 GiB, --shm-size=1g)`,
      );
    if (rdma) problems.push(...limits);
    else
      for (const limit of limits) warnings.push(`${host}: ${limit}; not a problem for iperf3 and bench tcp`);
    // check --live's errors: RDMA ones (ports, GIDs, GPUDirect, PFC/ECN) only count when an RDMA tool runs.
    for (const finding of check.live) {
      const line = `check --live ${finding.ruleId}: ${finding.message}`;
      if (finding.rdma && !rdma) warnings.push(`${host}: ${line}; not a problem for iperf3 and bench tcp`);
      else problems.push(line);
    }
    const clock = check.clockOffsetS;
    if (clock !== null && Math.abs(clock.offset) - clock.uncertainty > MAX_CLOCK_OFFSET_S) {
      problems.push(
        `clock ${clock.offset > 0 ? 'ahead of' : 'behind'} this machine's by ${Math.abs(clock.offset).toFixed(1)} s (NTP or PTP not keeping it)`,
      );
    }
    const mtu = mtuOf[index];
    if (mtu !== null && mtu !== undefined && mtu !== fleetMtu) {
      const names = check.mtus.map((m) => `${m.ifname} ${m.mtu}`).join(', ');
      problems.push(`MTU ${mtu} (${names}) where the other hosts have ${fleetMtu}`);
    }
    // A skewed clock alone is a warning (traces and logs misorder), not a broken host.
    const clockOff = clock !== null && Math.abs(clock.offset) - clock.uncertainty > MAX_CLOCK_OFFSET_S;
    const onlyClock = problems.length === 1 && clockOff;
    const verdict: AcceptVerdict = problems.length === 0 ? 'pass' : onlyClock ? 'unstable' : 'fail';
    runs.push({
      stage: 'preflight',
      tool: options.tools[0] ?? 'iperf3',
      hosts: [host],
      argv,
      exitCode: check.link.exitCode,
      wallS: check.link.wallS,
      measured: mtu ?? null,
      expected: fleetMtu,
      unit: 'rateGbps',
      verdict,
    });
    if (verdict !== 'pass') hostOutcomes.push({ host, verdict, argv, detail: problems.join('; ') });
  });
  // Per host: the link listing, each tool's version, check --live (with aifabric there), memlock, /dev/shm and the clock.
  stages.push({
    name: 'preflight',
    runs: hosts.length * (4 + tools.length + (options.tools.includes('bench-tcp') ? 1 : 0)),
  });
}

/** MTU of each interface that is up, from `ip -j link show`, loopback left out. */
export function interfaceMtus(stdout: string): { ifname: string; mtu: number }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap(
    (link: { ifname?: unknown; mtu?: unknown; link_type?: unknown; operstate?: unknown; flags?: unknown }) =>
      typeof link.ifname === 'string' &&
      typeof link.mtu === 'number' &&
      link.link_type !== 'loopback' &&
      Array.isArray(link.flags) &&
      link.flags.includes('UP')
        ? [{ ifname: link.ifname, mtu: link.mtu }]
        : [],
  );
}
