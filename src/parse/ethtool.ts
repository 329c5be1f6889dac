/**
 * `ethtool -S IFACE`: every counter, plus the ones a lossless-fabric check reads, named per driver:
 * - mlx5 (kernel Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst):
 *   rx/tx_prioN_pause, _pause_duration (microseconds), _pause_transition, rx/tx_pause_ctrl_phy,
 *   rx/tx_global_pause*, rx_discards_phy, tx_discards_phy, rx_prioN_discards, rx_out_of_buffer.
 * - ice (ice_ethtool.c): rx/tx_priority_N_xoff.nic; i40e (i40e_ethtool.c): port.rx/tx_priority_N_xoff[_rx|_tx].
 * Per-queue prefixes such as `[0]: ` (bnx2x) or `rxq0: ` (be2net) are kept in the counter name.
 */
import { NotThisKindError, type ParseResult, type ParseWarning, type Parser } from './types.js';

export interface PriorityPauseCounters {
  priority: number;
  /** PFC pause (XOFF) frames received: the peer asked us to stop sending this priority. */
  rxPause: number | null;
  /** PFC pause frames sent: we asked the peer to stop, our receive side is backed up. */
  txPause: number | null;
  rxPauseDurationUs: number | null;
  txPauseDurationUs: number | null;
  rxPauseTransition: number | null;
  txPauseTransition: number | null;
  /** Packets dropped on receive for this priority (mlx5 rx_prioN_discards); must stay 0 on the lossless one. */
  rxDiscards: number | null;
}

export interface LinkPauseCounters {
  rxPauseCtrlPhy: number | null;
  txPauseCtrlPhy: number | null;
  rxGlobalPause: number | null;
  txGlobalPause: number | null;
  rxGlobalPauseDurationUs: number | null;
  txGlobalPauseDurationUs: number | null;
  txPauseStormWarningEvents: number | null;
  txPauseStormErrorEvents: number | null;
}

export interface DiscardCounters {
  rxDiscardsPhy: number | null;
  txDiscardsPhy: number | null;
  /** mlx5: packets dropped because no receive WQE was posted (software too slow). */
  rxOutOfBuffer: number | null;
  /** Every other counter whose name says discard or drop, by name. */
  other: Record<string, number>;
}

export interface EthtoolFacts {
  /** From a `ethtool -S IFACE` command line in the capture, when there is one. */
  interfaceName: string | null;
  counters: Record<string, number>;
  /** Only priorities with at least one counter printed, ascending. */
  priorities: PriorityPauseCounters[];
  linkPause: LinkPauseCounters;
  discards: DiscardCounters;
}

const DETECT_PREFIX_CHARS = 64 * 1024;
const COUNTER = /^\s+((?:\[\d+\]: |[a-z]+\d+: )?[A-Za-z0-9_.-]+):\s+(\d+)\s*$/;

function detectEthtool(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (/^NIC statistics:\s*$/m.test(head)) return 0.95;
  const counters = head.match(/^\s+(\[\d+\]: )?(rx|tx)_[a-z0-9_]+:\s+\d+\s*$/gm)?.length ?? 0;
  if (counters >= 5) return 0.85;
  if (counters >= 2 && /(prio\d_pause|pause_ctrl_phy|discards_phy)/.test(head)) return 0.8;
  return 0;
}

function emptyPriority(priority: number): PriorityPauseCounters {
  return {
    priority,
    rxPause: null,
    txPause: null,
    rxPauseDurationUs: null,
    txPauseDurationUs: null,
    rxPauseTransition: null,
    txPauseTransition: null,
    rxDiscards: null,
  };
}

type PriorityField = Exclude<keyof PriorityPauseCounters, 'priority'>;

/** Which per-priority field a counter name feeds, for the drivers named in the file comment. */
function priorityField(name: string): { priority: number; field: PriorityField } | undefined {
  const mlx5 = /^(rx|tx)_prio(\d)_(pause|pause_duration|pause_transition|discards)$/.exec(name);
  if (mlx5) {
    const direction = mlx5[1] === 'rx' ? 'rx' : 'tx';
    const kind = mlx5[3];
    if (kind === 'discards')
      return direction === 'rx' ? { priority: Number(mlx5[2]), field: 'rxDiscards' } : undefined;
    const suffix =
      kind === 'pause' ? 'Pause' : kind === 'pause_duration' ? 'PauseDurationUs' : 'PauseTransition';
    return { priority: Number(mlx5[2]), field: `${direction}${suffix}` as PriorityField };
  }
  const intel = /^(?:port\.)?(rx|tx)_priority_(\d)_xoff(?:_rx|_tx)?(?:\.nic)?$/.exec(name);
  if (intel) return { priority: Number(intel[2]), field: intel[1] === 'rx' ? 'rxPause' : 'txPause' };
  return undefined;
}

export function parseEthtool(text: string): ParseResult<EthtoolFacts> {
  const warnings: ParseWarning[] = [];
  const counters: Record<string, number> = {};
  let interfaceName: string | null = null;
  let sawHeader = false;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    const command = /ethtool\s+(?:-S|--statistics)\s+(\S+)/.exec(line);
    if (command && !/^\s/.test(line)) {
      interfaceName = command[1] ?? null;
      return;
    }
    if (/^NIC statistics:\s*$/.test(line)) {
      sawHeader = true;
      return;
    }
    const match = COUNTER.exec(line);
    if (match) {
      const name = match[1] ?? '';
      const value = Number(match[2]);
      if (!Number.isSafeInteger(value)) {
        warnings.push({
          line: lineNumber,
          message: `${name} = ${match[2] ?? ''} is beyond 2^53: the JSON value is approximate`,
        });
      }
      counters[name] = value;
      return;
    }
    if (/^\s+\S.*:\s*\S*$/.test(line) && (sawHeader || Object.keys(counters).length > 0)) {
      warnings.push({
        line: lineNumber,
        message: 'counter line without a numeric value (cut short?); skipped',
      });
    }
  });
  // Without the `NIC statistics:` header (a grep of the output), rx_/tx_ counter names are the evidence.
  const hasNicCounterNames = Object.keys(counters).some((name) =>
    /(^|: )(rx|tx)_|^port\.(rx|tx)_/.test(name),
  );
  if (!sawHeader && !hasNicCounterNames) {
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('ethtool', firstIndex + 1, lines[firstIndex] ?? '');
  }
  const byPriority = new Map<number, PriorityPauseCounters>();
  const other: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    const target = priorityField(name);
    if (target) {
      const entry = byPriority.get(target.priority) ?? emptyPriority(target.priority);
      entry[target.field] = value;
      byPriority.set(target.priority, entry);
    } else if (/discard|drop/.test(name) && !['rx_discards_phy', 'tx_discards_phy'].includes(name)) {
      other[name] = value;
    }
  }
  const get = (name: string): number | null => counters[name] ?? null;
  const facts: EthtoolFacts = {
    interfaceName,
    counters,
    priorities: [...byPriority.values()].sort((a, b) => a.priority - b.priority),
    linkPause: {
      rxPauseCtrlPhy: get('rx_pause_ctrl_phy'),
      txPauseCtrlPhy: get('tx_pause_ctrl_phy'),
      rxGlobalPause: get('rx_global_pause'),
      txGlobalPause: get('tx_global_pause'),
      rxGlobalPauseDurationUs: get('rx_global_pause_duration'),
      txGlobalPauseDurationUs: get('tx_global_pause_duration'),
      txPauseStormWarningEvents: get('tx_pause_storm_warning_events'),
      txPauseStormErrorEvents: get('tx_pause_storm_error_events'),
    },
    discards: {
      rxDiscardsPhy: get('rx_discards_phy'),
      txDiscardsPhy: get('tx_discards_phy'),
      rxOutOfBuffer: get('rx_out_of_buffer'),
      other,
    },
  };
  return { kind: 'ethtool', facts, warnings };
}

export const ethtoolParser: Parser<EthtoolFacts> = {
  kind: 'ethtool',
  description: 'ethtool -S: every counter, per-priority PFC pause and discard counters (mlx5, ice, i40e)',
  detect: detectEthtool,
  parse: parseEthtool,
};
