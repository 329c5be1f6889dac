import { describe, expect, it } from 'vitest';
import { parseSysctl } from '../../src/parse/sysctl.js';
import { NotThisKindError } from '../../src/parse/types.js';
import { fixtureText } from './tool-output-fixtures.js';

// Golden facts, never-throw, every-cut and refusal of other kinds: the shared suite, parser-suite.test.ts.

const KIND = 'sysctl';

describe('sysctl parser: facts checked by hand against the text', () => {
  it('types the TCP buffer settings of a tuning file', () => {
    const { facts, warnings } = parseSysctl(fixtureText(KIND, 'saphana-azure-anf-sysctl.conf'));
    expect(facts.network).toMatchObject({
      coreRmemMaxBytes: 16777216,
      coreWmemMaxBytes: 16777216,
      tcpRmem: { minBytes: 4096, defaultBytes: 131072, maxBytes: 16777216 },
      tcpWmem: { minBytes: 4096, defaultBytes: 16384, maxBytes: 16777216 },
      netdevMaxBacklog: 300000,
      tcpSlowStartAfterIdle: false,
      tcpWindowScaling: true,
      tcpCongestionControl: null,
    });
    expect(facts.entries).toHaveLength(14);
    expect(warnings).toEqual([]);
  });

  it('reads sysctl -a with tab-separated multi-number values and skips the prompt', () => {
    const { facts, warnings } = parseSysctl(
      fixtureText(KIND, 'openmptcprouter-issue104-sysctl-a-truncated.txt'),
    );
    expect(facts.settings['fs.file-nr']).toBe('512        0       51200');
    expect(facts.settings['kernel.core_pattern']).toBe('/tmp/%e.%t.%p.%s.core');
    expect(warnings).toEqual([{ line: 44, message: 'not a key = value line (cut short?); skipped' }]);
  });

  it('reads sysctl.d syntax: `-` prefix, `/` separators, `;` comments, quoted triples, later values win', () => {
    const text =
      '; comment\n-net/core/rmem_max = 268435456\nnet.ipv4.tcp_rmem="4096 87380 134217728"\nnet.core.rmem_max = 536870912\nnet.ipv4.tcp_congestion_control = bbr\n';
    const { facts, warnings } = parseSysctl(text);
    expect(facts.entries[0]).toEqual({
      key: 'net.core.rmem_max',
      value: '268435456',
      line: 2,
      ignoreErrors: true,
    });
    expect(facts.network).toMatchObject({
      coreRmemMaxBytes: 536870912,
      tcpRmem: { minBytes: 4096, defaultBytes: 87380, maxBytes: 134217728 },
      tcpCongestionControl: 'bbr',
    });
    expect(warnings).toEqual([
      { line: 4, message: 'net.core.rmem_max set again (268435456 -> 536870912); the later value wins' },
    ]);
  });

  it('refuses other tools’ outputs', () => {
    expect(() => parseSysctl(fixtureText('nccl-env', 'flagai-run_multi.sh'))).toThrow(NotThisKindError);
  });
});
