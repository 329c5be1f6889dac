import { describe, expect, it } from 'vitest';
import * as accept from '../../src/accept/index.js';

describe('accept room surface', () => {
  it('exports exactly its public functions and constants', () => {
    expect(Object.keys(accept).sort()).toEqual([
      'DEFAULT_CV_THRESHOLD',
      'DEFAULT_SLOW_FRACTION',
      'DEFAULT_Z_THRESHOLD',
      'LOSSY_RETRANSMITS_PER_MB',
      'MAD_TO_SIGMA',
      'MAX_HOSTLIST_HOSTS',
      'MIN_FLEET',
      'MIN_RELATIVE_SPREAD',
      'TCP_GOODPUT_1500',
      'attributeCulprits',
      'circlePairings',
      'expandHostlist',
      'formatArgv',
      'hardFailureOf',
      'interfaceMtus',
      'judgeResults',
      'launcherArgv',
      'launcherProblem',
      'localise',
      'parseHostfile',
      'randomPairings',
      'readBenchTcpJson',
      'readIperf3Json',
      'remoteLauncher',
      'robustSpread',
      'runAcceptance',
      'singleFaultRunBound',
      'testbedLauncher',
    ]);
  });

  it('chains end to end: judge pair figures, attribute, and the node is first', () => {
    const hosts = accept.expandHostlist('node[01-08]');
    const pairs = accept.circlePairings(hosts).flat();
    const figures = pairs.map(([a, b]) => (a === 'node05' || b === 'node05' ? 48 : 190 + (a.length % 3)));
    const verdicts = accept.judgeResults(
      pairs.map(([a, b], i) => ({ id: `${a}~${b}`, measured: figures[i] ?? null, expected: 200 })),
    );
    const culprits = accept.attributeCulprits({
      pairs: pairs.map(([a, b], i) => ({
        a,
        b,
        verdict: verdicts[i]?.verdict ?? 'fail',
        argv: ['iperf3', '-c', b],
      })),
    });
    expect(culprits[0]).toMatchObject({ kind: 'node', id: 'node05', severity: 'error' });
  });
});
