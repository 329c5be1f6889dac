import { describe, expect, it } from 'vitest';
import { parseEthtool } from '../../src/parse/ethtool.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'ethtool';

describe('ethtool -S parser: facts checked by hand against the text', () => {
  it('reads mlx5 link-level pause counters and their durations', () => {
    const { facts } = parseEthtool(fixtureText(KIND, 'linux-notes-mlx5-cx4lx-pause-grep.txt'));
    expect(facts.interfaceName).toBe('eth03');
    expect(facts.linkPause).toEqual({
      rxPauseCtrlPhy: 0,
      txPauseCtrlPhy: 1266552,
      rxGlobalPause: 0,
      txGlobalPause: 1266552,
      rxGlobalPauseDurationUs: 0,
      txGlobalPauseDurationUs: 555665182,
      txPauseStormWarningEvents: 0,
      txPauseStormErrorEvents: 0,
    });
  });

  it('reads mlx5 per-priority discards and the physical and buffer discards', () => {
    const { facts } = parseEthtool(fixtureText(KIND, 'linux-notes-mlx5-cx4lx-discards-grep.txt'));
    expect(facts.priorities.map((p) => [p.priority, p.rxDiscards])).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((p) => [p, 0]),
    );
    expect(facts.discards).toEqual({ rxDiscardsPhy: 0, txDiscardsPhy: 0, rxOutOfBuffer: 0, other: {} });
  });

  it('reads per-priority PFC counters of mlx5 and Intel ice/i40e drivers', () => {
    const text = [
      'NIC statistics:',
      '     rx_prio3_pause: 142',
      '     tx_prio3_pause: 87',
      '     rx_prio3_pause_duration: 91442',
      '     rx_prio3_pause_transition: 40',
      '     rx_priority_5_xoff.nic: 7',
      '     port.tx_priority_5_xoff_tx: 9',
    ].join('\n');
    const { facts } = parseEthtool(text);
    expect(facts.priorities).toEqual([
      {
        priority: 3,
        rxPause: 142,
        txPause: 87,
        rxPauseDurationUs: 91442,
        txPauseDurationUs: null,
        rxPauseTransition: 40,
        txPauseTransition: null,
        rxDiscards: null,
      },
      {
        priority: 5,
        rxPause: 7,
        txPause: 9,
        rxPauseDurationUs: null,
        txPauseDurationUs: null,
        rxPauseTransition: null,
        txPauseTransition: null,
        rxDiscards: null,
      },
    ]);
  });

  it('keeps per-queue prefixes and collects other drop counters', () => {
    const { facts, warnings } = parseEthtool(
      fixtureText(KIND, 'ethq-issue6-bnx2x-broadcom-queue-prefix-truncated.txt'),
    );
    expect(facts.counters['[1]: tx_bcast_packets']).toBe(8249);
    expect(Object.keys(facts.discards.other)).toContain('[0]: rx_discards');
    expect(warnings).toEqual([
      { line: 39, message: 'counter line without a numeric value (cut short?); skipped' },
    ]);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseEthtool(fixtureText('ibv-devinfo', 'deepep-issue60-plain-port-down.txt'))).toThrow(
      NotThisKindError,
    );
  });
});
