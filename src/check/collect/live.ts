/**
 * `check --live`: collect on this host what a capture folder would hold, by running the tools that
 * exist (each with a timeout) and reading /proc and /sys directly where that needs no tool. Every
 * tool that is absent or fails becomes a note saying what could therefore not be checked.
 */
import { readFile, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Capture, CaptureKind, HostCaptures } from '../types.js';
import { recogniseText } from './recognise.js';
import { runTool, type ToolOutcome } from './run-tool.js';

export interface LiveOptions {
  /** Seconds between the two ethtool -S samples used to see PFC pause growth. */
  sampleIntervalSeconds?: number;
  env?: NodeJS.ProcessEnv;
}

export interface LiveCollection {
  hosts: HostCaptures[];
  notes: string[];
}

// The sysctl keys the tcp rules read; read from /proc/sys so no `sysctl` binary is needed.
const SYSCTL_KEYS = [
  'net.core.rmem_max',
  'net.core.wmem_max',
  'net.core.rmem_default',
  'net.core.wmem_default',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
  'net.ipv4.tcp_congestion_control',
  'net.core.default_qdisc',
  'net.core.netdev_max_backlog',
  'net.ipv4.tcp_mtu_probing',
];

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

class Collector {
  readonly captures: Capture[] = [];
  readonly notes: string[] = [];

  add(source: string, text: string, kind?: CaptureKind): boolean {
    const recognised = recogniseText(text, kind);
    if (!recognised) {
      this.notes.push(`${source}: output not recognised, skipped`);
      return false;
    }
    this.captures.push({
      source,
      kind: recognised.kind,
      facts: recognised.facts,
      text,
      warnings: recognised.warnings,
    });
    return true;
  }

  async tool(
    label: string,
    command: string,
    args: string[],
    kind: CaptureKind,
    absent: string,
    acceptExitCodes: number[] = [],
  ): Promise<string | null> {
    const outcome: ToolOutcome = await runTool(command, args, { acceptExitCodes });
    const source = `live:${[command, ...args].join(' ')}`;
    if (outcome.status === 'missing') {
      this.notes.push(`${label}: ${command} not found; ${absent}`);
      return null;
    }
    if (outcome.status === 'failed') {
      this.notes.push(`${label}: ${command} failed (${outcome.reason}); ${absent}`);
      return null;
    }
    if (outcome.stdout.trim() === '') {
      this.notes.push(`${label}: ${command} printed nothing; ${absent}`);
      return null;
    }
    this.add(source, outcome.stdout, kind);
    return outcome.stdout;
  }
}

async function rdmaNetdevs(): Promise<string[]> {
  const netdevs = new Set<string>();
  let devices: string[];
  try {
    devices = await readdir('/sys/class/infiniband');
  } catch {
    return [];
  }
  for (const device of devices) {
    try {
      for (const netdev of await readdir(`/sys/class/infiniband/${device}/device/net`)) netdevs.add(netdev);
    } catch {
      // A device without a netdev (InfiniBand, or a VF without one) has no ethtool counters.
    }
  }
  return [...netdevs].sort();
}

export async function collectLive(options: LiveOptions = {}): Promise<LiveCollection> {
  const c = new Collector();
  const env = options.env ?? process.env;
  await c.tool(
    'gdr',
    'nvidia-smi',
    ['topo', '-m'],
    'nvidia-smi-topo',
    'GPU/NIC distances not checked (no NVIDIA driver or GPU)',
  );
  await c.tool(
    'rdma',
    'ibv_devinfo',
    ['-v'],
    'ibv-devinfo',
    'HCA state, rate, MTU and firmware not checked (rdma-core not installed)',
  );
  await c.tool('rdma', 'rdma', ['link', 'show'], 'rdma-link', 'RDMA link state from iproute2 not checked');
  await c.tool(
    'rdma',
    'show_gids',
    [],
    'show-gids',
    'GID table from show_gids not read (it ships with MLNX_OFED/DOCA)',
  );
  await c.tool(
    'virt',
    'systemd-detect-virt',
    [],
    'virt',
    'virtualisation read from DMI and cpuinfo only',
    [1],
  );

  const sysctl = (
    await Promise.all(
      SYSCTL_KEYS.map(async (key) => ({
        key,
        value: await readText(`/proc/sys/${key.replace(/\./g, '/')}`),
      })),
    )
  )
    .filter((entry): entry is { key: string; value: string } => entry.value !== null)
    .map((entry) => `${entry.key} = ${entry.value.trim().replace(/\s+/g, '\t')}`);
  if (sysctl.length > 0) c.add('live:/proc/sys', `${sysctl.join('\n')}\n`, 'sysctl');
  else c.notes.push('tcp: /proc/sys not readable; socket buffer limits not checked');

  const vendor = await readText('/sys/class/dmi/id/sys_vendor');
  const product = await readText('/sys/class/dmi/id/product_name');
  if (vendor !== null || product !== null)
    c.add(
      'live:/sys/class/dmi/id',
      `sys_vendor: ${vendor?.trim() ?? ''}\nproduct_name: ${product?.trim() ?? ''}\n`,
      'dmi',
    );
  else c.notes.push('virt: /sys/class/dmi/id not readable (no DMI on this platform)');
  const cpuinfo = await readText('/proc/cpuinfo');
  if (cpuinfo !== null && !c.add('live:/proc/cpuinfo', cpuinfo, 'cpuinfo'))
    c.notes.push('virt: /proc/cpuinfo has no x86 flags line; hypervisor flag not read');

  const ncclLines = Object.entries(env)
    .filter(([name, value]) => /^(NCCL_|UCX_|FI_)/.test(name) && value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${value ?? ''}`);
  if (ncclLines.length > 0) c.add('live:environment', `${ncclLines.join('\n')}\n`, 'nccl-env');
  else
    c.notes.push(
      'nccl env: no NCCL_* variables in this environment; NCCL_IB_HCA, GID index, traffic class and socket settings not checked (run check --live inside the job environment)',
    );

  const netdevs = await rdmaNetdevs();
  if (netdevs.length === 0) {
    c.notes.push(
      'lossless: no RDMA network devices under /sys/class/infiniband; PFC counters and NIC QoS not checked',
    );
  } else {
    const sample = async () => {
      for (const netdev of netdevs)
        await c.tool('lossless', 'ethtool', ['-S', netdev], 'ethtool', `PFC counters of ${netdev} not read`);
    };
    await sample();
    await sleep((options.sampleIntervalSeconds ?? 2) * 1000);
    await sample();
    for (const netdev of netdevs)
      await c.tool(
        'lossless',
        'mlnx_qos',
        ['-i', netdev],
        'mlnx-qos',
        `PFC priorities of ${netdev} not read (mlnx_qos ships with MLNX_OFED/DOCA)`,
      );
  }
  // ethtool -S and mlnx_qos do not print the interface name; the command line does, so take it from there.
  for (const capture of c.captures) {
    if (capture.kind === 'ethtool' || capture.kind === 'mlnx-qos')
      (capture as Capture<'ethtool' | 'mlnx-qos'>).facts.interfaceName ??=
        capture.source.split(' ').pop() ?? null;
  }
  return { hosts: [{ host: hostname(), captures: c.captures }], notes: c.notes };
}
