import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ruleFamilies } from '../../src/check/index.js';
import { RULES } from '../../src/core/rules.js';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.js';
import { parseXml, type XmlElement } from './xml-check.js';

// End-to-end: the built CLI on the fixture folders, as a user would run it (npm test builds dist/ first).
const root = REPO_ROOT;
const fixtures = join(root, 'test', 'fixtures', 'check');
const run = (args: string[]): Promise<CliRun> => runCli(args);

interface EnvelopeFinding {
  severity: string;
  ruleId: string;
  host?: string;
  evidence?: string;
  message: string;
  remediation?: string;
  [key: string]: unknown;
}

function nonPass(findings: EnvelopeFinding[]): string[] {
  return findings
    .filter((finding) => finding.severity !== 'pass')
    .map((finding) => `${finding.severity} ${finding.ruleId} ${finding.host ?? ''}`)
    .sort();
}

/**
 * check's rules that healthy-roce gives no pass for, each with why; every other rule of check's
 * families in the rule table must pass there, so a new rule joins the list unless it says why not.
 */
const NOT_PASSED_ON_HEALTHY_ROCE: Record<string, string> = {
  'busbw.avg-reliance': 'only warns: the run gated on NCCL_TESTS_MIN_BW',
  'busbw.range': 'only errs: a value no measurement gives',
  'gdr.level': 'NCCL_NET_GDR_LEVEL is not set there',
  'gdr.log': 'its nccl-tests log has no NCCL INFO GDR line',
  'rdma.perftest-bw': 'no perftest output captured',
  'lossless.ecn': 'no SONiC config_db.json captured',
  'tcp.sockets': 'a RoCE fabric: socket checks do not apply',
  'tcp.buffers': 'a RoCE fabric: socket checks do not apply',
  'straggler.busbw': 'one host: stragglers need three runs to compare',
  'straggler.latency': 'one host: stragglers need three runs to compare',
};
const checkFamilies = new Set<string>(ruleFamilies.map((family) => family.id));
const PASSED_ON_HEALTHY_ROCE = RULES.filter(
  (rule) => checkFamilies.has(rule.family) && !(rule.id in NOT_PASSED_ON_HEALTHY_ROCE),
).map((rule) => rule.id);

const scenarios: { folder: string; args?: string[]; code: number; expected: string[] }[] = [
  { folder: 'healthy-roce', code: 0, expected: [] },
  { folder: 'gid-roce-v1', code: 1, expected: ['error rdma.gid-index gid-roce-v1'] },
  { folder: 'port-down', code: 1, expected: ['error rdma.port-state port-down'] },
  { folder: 'gpu-nic-sys', code: 1, expected: ['error gdr.nic-distance gpu-nic-sys'] },
  { folder: 'busbw-60pct', code: 1, expected: ['error busbw.plateau busbw-60pct'] },
  {
    folder: 'straggler-8-hosts',
    args: ['--fabric', 'roce-400g'],
    code: 1,
    expected: ['error straggler.busbw node05'],
  },
];

describe('aifabric check --from (fixture folders)', () => {
  for (const scenario of scenarios) {
    it(`${scenario.folder}: exactly ${scenario.expected.length === 0 ? 'no findings to report' : scenario.expected.join(', ')}`, async () => {
      const result = await run([
        'check',
        '--from',
        join(fixtures, scenario.folder),
        ...(scenario.args ?? []),
        '--json',
      ]);
      expect(result.code).toBe(scenario.code);
      const envelope = JSON.parse(result.stdout) as {
        kind: string;
        findings: EnvelopeFinding[];
        metrics: { counts: { error: number; warn: number; info: number; pass: number }; hosts: unknown[] };
      };
      expect(envelope.kind).toBe('check');
      expect(nonPass(envelope.findings)).toEqual(scenario.expected);
      // Every finding carries the fields the issue asks for, and errors say how to fix them.
      for (const finding of envelope.findings) {
        expect(['error', 'warn', 'info', 'pass']).toContain(finding.severity);
        expect(finding.ruleId).toMatch(/^[a-z]+\.[a-z-]+$/);
        expect(finding.host).toBeTruthy();
        expect(finding.message.length).toBeGreaterThan(10);
        if (finding.severity === 'error') {
          expect(finding.evidence).toMatch(/^\S+:\d+ \S/);
          expect(finding.remediation).toBeTruthy();
        }
      }
      if (scenario.folder === 'healthy-roce') {
        // Every rule of check's families in the table passed, but those that say why not: a rule silently not running would fail this.
        const passed = new Set(
          envelope.findings.filter((finding) => finding.severity === 'pass').map((finding) => finding.ruleId),
        );
        expect([...passed].sort()).toEqual([...PASSED_ON_HEALTHY_ROCE].sort());
        for (const id of Object.keys(NOT_PASSED_ON_HEALTHY_ROCE))
          expect(
            RULES.some((rule) => rule.id === id && checkFamilies.has(rule.family)),
            id,
          ).toBe(true);
      }
      const counts = envelope.metrics.counts;
      expect(counts.error + counts.warn + counts.info + counts.pass).toBe(envelope.findings.length);
    });
  }

  it('busbw-60pct reports measured, expected and ratio', async () => {
    const result = await run(['check', '--from', join(fixtures, 'busbw-60pct'), '--json']);
    const envelope = JSON.parse(result.stdout) as { findings: EnvelopeFinding[] };
    const plateau = envelope.findings.find((finding) => finding.ruleId === 'busbw.plateau')!;
    expect(plateau.ratio as number).toBeGreaterThan(0.55);
    expect(plateau.ratio as number).toBeLessThan(0.65);
    expect(plateau.measuredBusbwGBps as number).toBeCloseTo(
      (plateau.ratio as number) * (plateau.expectedBusbwGBps as number),
      6,
    );
    expect(plateau.evidence).toMatch(/^all_reduce_2node\.log:\d+ busbw /);
  });

  it('prints a table grouped by host and a summary line without --json', async () => {
    const result = await run(['check', '--from', join(fixtures, 'port-down')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^port-down \(\d+ capture\(s\)\): 1 finding\(s\)/m);
    expect(result.stdout).toMatch(/ERROR rdma\.port-state .*mlx5_3\/1 DOWN\/DISABLED/);
    expect(result.stdout).toMatch(/evidence: devinfo-v\.out:\d+ mlx5_3 port 1/);
    expect(result.stdout.trimEnd().split('\n').pop()).toMatch(
      /^1 error\(s\), 0 warning\(s\), 0 info, \d+ passed: FAILED$/,
    );
  });

  it('--junit writes JUnit XML whose structure and counts match the findings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-junit-'));
    const file = join(dir, 'nested', 'check.xml');
    const result = await run([
      'check',
      '--from',
      join(fixtures, 'straggler-8-hosts'),
      '--fabric',
      'roce-400g',
      '--junit',
      file,
      '--json',
    ]);
    expect(result.code).toBe(1);
    const envelope = JSON.parse(result.stdout) as { findings: EnvelopeFinding[] };
    const rootElement = parseXml(readFileSync(file, 'utf8'));
    expect(rootElement.name).toBe('testsuites');
    const suites = rootElement.children;
    expect(suites.map((suite) => suite.name)).toEqual(Array(8).fill('testsuite'));
    expect(suites.map((suite) => suite.attributes.name)).toEqual([
      'node01',
      'node02',
      'node03',
      'node04',
      'node05',
      'node06',
      'node07',
      'node08',
    ]);
    let tests = 0;
    let failures = 0;
    for (const suite of suites) {
      for (const attribute of ['name', 'tests', 'failures', 'errors', 'skipped', 'time', 'timestamp'])
        expect(suite.attributes).toHaveProperty(attribute);
      const cases = suite.children.filter((child) => child.name === 'testcase');
      expect(cases).toHaveLength(suite.children.length);
      expect(Number(suite.attributes.tests)).toBe(cases.length);
      const failed = cases.filter((testCase) =>
        testCase.children.some((child: XmlElement) => child.name === 'failure'),
      );
      expect(Number(suite.attributes.failures)).toBe(failed.length);
      for (const testCase of cases) {
        expect(testCase.attributes.name).toMatch(/^[a-z]+\.[a-z-]+$/);
        expect(testCase.attributes.classname).toMatch(/^aifabric\.check\.[a-z]+$/);
      }
      // One testcase per rule and host: the same pairs as the findings.
      const pairs = new Set(
        envelope.findings
          .filter((finding) => finding.host === suite.attributes.name)
          .map((finding) => finding.ruleId),
      );
      expect(cases.map((testCase) => testCase.attributes.name).sort()).toEqual([...pairs].sort());
      tests += cases.length;
      failures += failed.length;
    }
    expect(Number(rootElement.attributes.tests)).toBe(tests);
    expect(Number(rootElement.attributes.failures)).toBe(failures);
    expect(failures).toBe(1);
    const node05 = suites.find((suite) => suite.attributes.name === 'node05')!;
    const failure = node05.children.find((testCase) => testCase.attributes.name === 'straggler.busbw')!
      .children[0]!;
    expect(failure.attributes.message).toMatch(/node05 is a straggler/);
  });

  it('exits 2 with one line for a missing --from folder, a file given as folder, a bad cluster file and conflicting flags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aifabric-check-'));
    const notAFolder = join(dir, 'file.txt');
    writeFileSync(notAFolder, 'x');
    const badCluster = join(dir, 'cluster.yaml');
    writeFileSync(badCluster, 'nodes: two\n');
    const cases: [string[], RegExp][] = [
      [['check', '--from', join(dir, 'missing')], /--from .*missing: no such folder/],
      [['check', '--from', notAFolder], /not a folder/],
      [['check', '--from', dir], /no recognised tool output/],
      [['check', '--from', join(fixtures, 'port-down'), '--cluster', badCluster], /cluster\.yaml:1/],
      [['check', '--from', join(fixtures, 'port-down'), '--fabric', 'roce-999g'], /unknown fabric preset/],
      [['check'], /nothing to check/],
      [['check', '--live', '--from', dir], /either --from DIR or --live/],
    ];
    for (const [args, pattern] of cases) {
      const result = await run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(pattern);
    }
  });

  it('--live on this machine finishes with notes on what is absent and no error exit', async () => {
    const result = await run(['check', '--live', '--json']);
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout) as {
      findings: EnvelopeFinding[];
      metrics: { notes: string[]; counts: { error: number } };
    };
    expect(envelope.metrics.counts.error).toBe(0);
    // Whatever this host lacks is named, tool by tool; at least GPUs and RDMA are absent here.
    const notes = envelope.metrics.notes.join('\n');
    expect(notes).toMatch(/nvidia-smi (not found|failed|printed nothing)/);
    expect(notes).toMatch(/ibv_devinfo (not found|failed|printed nothing)/);
    for (const finding of envelope.findings) expect(['warn', 'info', 'pass']).toContain(finding.severity);
    const text = await run(['check', '--live']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^notes:$/m);
    expect(text.stdout).toMatch(/: OK$/m);
  });
});
