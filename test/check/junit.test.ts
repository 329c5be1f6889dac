import { describe, expect, it } from 'vitest';
import { toJunitXml, escapeXml } from '../../src/check/junit.js';
import { getFabricPreset } from '../../src/spec/index.js';
import { check, fixture, host } from './helpers.js';
import { parseXml } from './xml-check.js';

describe('JUnit XML', () => {
  it('escapes markup and drops characters XML 1.0 forbids', () => {
    expect(escapeXml('a<b & "c" \'d\' >\u0001\u0007e')).toBe(
      'a&lt;b &amp; &quot;c&quot; &apos;d&apos; &gt;e',
    );
    expect(() => parseXml(`<r a="${escapeXml('<&>"')}">${escapeXml('x < y && z')}</r>`)).not.toThrow();
  });

  it('the strict reader rejects what JUnit consumers reject', () => {
    expect(() => parseXml('<a><b></a></b>')).toThrow(/mismatched/);
    expect(() => parseXml('<a>x & y</a>')).toThrow(/entity/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/duplicate/);
    expect(() => parseXml('<a/><b/>')).toThrow(/after the root/);
    expect(() => parseXml('<a>')).toThrow(/unclosed/);
  });

  it('one suite per host, a failure per error rule, warnings in system-out; counts add up', () => {
    const down = host('down', {
      devinfo: fixture('check', 'port-down', 'devinfo-v.out'),
      'env.sh': 'export NCCL_IB_HCA=mlx5\n',
    });
    const ok = host('ok', {
      devinfo: fixture('check', 'healthy-roce', 'devinfo-v.out'),
      'env.sh': 'export NCCL_IB_HCA=mlx5\n',
    });
    const result = check([down, ok], { fabric: getFabricPreset('roce-400g') });
    const xml = parseXml(toJunitXml(result));
    expect(xml.attributes).toMatchObject({
      tests: String(xml.children.reduce((sum, suite) => sum + suite.children.length, 0)),
      failures: '1',
      errors: '0',
    });
    const [first, second] = xml.children;
    expect(first?.attributes.name).toBe('down');
    const failed = first!.children.filter((testCase) =>
      testCase.children.some((child) => child.name === 'failure'),
    );
    expect(failed.map((testCase) => testCase.attributes.name)).toEqual(['rdma.port-state']);
    expect(failed[0]!.children[0]!.attributes.type).toBe('error');
    expect(failed[0]!.children[0]!.text).toMatch(/evidence: devinfo:\d+ mlx5_3 port 1 state DOWN\/DISABLED/);
    // NCCL_IB_TC unset is a warning: the testcase passes and says so in system-out.
    const tc = second!.children.find((testCase) => testCase.attributes.name === 'lossless.traffic-class')!;
    expect(tc.children.map((child) => child.name)).toEqual(['system-out']);
    expect(tc.children[0]!.text).toMatch(/^WARN lossless\.traffic-class: NCCL_IB_TC is not set/);
    expect(second?.attributes.failures).toBe('0');
  });
});
