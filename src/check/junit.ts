/**
 * JUnit XML for CI dashboards (the Jenkins/Ant schema GitLab and GitHub reporters read): one
 * <testsuite> per host, one <testcase> per rule and host. An error finding is a <failure>; warn and
 * info findings pass with their text in <system-out>, since a warning is not a test that did not run
 * (<skipped> would hide it in most dashboards).
 */
import type { CheckFinding } from './types.js';
import type { CheckResult } from './run-check.js';

const SEVERITY_RANK = { error: 0, warn: 1, info: 2, pass: 3 } as const;

/** XML 1.0 allows tab, LF, CR and code points from 0x20; anything else is dropped. */
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function describe(finding: CheckFinding): string {
  const lines = [`${finding.severity.toUpperCase()} ${finding.ruleId}: ${finding.message}`];
  if (finding.evidence) lines.push(`  evidence: ${finding.evidence}`);
  if (finding.remediation) lines.push(`  remediation: ${finding.remediation}`);
  return lines.join('\n');
}

interface Case {
  ruleId: string;
  family: string;
  findings: CheckFinding[];
}

function casesFor(findings: readonly CheckFinding[]): Case[] {
  const cases = new Map<string, Case>();
  for (const finding of findings) {
    const entry = cases.get(finding.ruleId) ?? {
      ruleId: finding.ruleId,
      family: finding.family,
      findings: [],
    };
    entry.findings.push(finding);
    cases.set(finding.ruleId, entry);
  }
  return [...cases.values()].sort((a, b) => a.ruleId.localeCompare(b.ruleId));
}

function renderCase(testCase: Case): { xml: string; failed: boolean } {
  const worst = testCase.findings.reduce((a, b) =>
    SEVERITY_RANK[b.severity] < SEVERITY_RANK[a.severity] ? b : a,
  );
  const open = `    <testcase name="${escapeXml(testCase.ruleId)}" classname="aifabric.check.${escapeXml(testCase.family)}" time="0">`;
  const body: string[] = [];
  if (worst.severity === 'error') {
    const errors = testCase.findings.filter((finding) => finding.severity === 'error');
    body.push(
      `      <failure message="${escapeXml(errors[0]!.message)}" type="error">${escapeXml(errors.map(describe).join('\n'))}</failure>`,
    );
  }
  const others = testCase.findings.filter((finding) => finding.severity !== 'error');
  if (others.length > 0)
    body.push(`      <system-out>${escapeXml(others.map(describe).join('\n'))}</system-out>`);
  return {
    xml: body.length === 0 ? `${open}</testcase>` : [open, ...body, '    </testcase>'].join('\n'),
    failed: worst.severity === 'error',
  };
}

export function toJunitXml(result: CheckResult): string {
  const findings = (result.findings ?? []) as CheckFinding[];
  const hostNames = [
    ...new Set([
      ...result.metrics.hosts.map((host) => host.name),
      ...findings.map((finding) => finding.host ?? '(cluster)'),
    ]),
  ];
  let totalTests = 0;
  let totalFailures = 0;
  const suites: string[] = [];
  for (const host of hostNames) {
    const cases = casesFor(findings.filter((finding) => (finding.host ?? '(cluster)') === host)).map(
      renderCase,
    );
    if (cases.length === 0) continue;
    const failures = cases.filter((entry) => entry.failed).length;
    totalTests += cases.length;
    totalFailures += failures;
    suites.push(
      [
        `  <testsuite name="${escapeXml(host)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="0" timestamp="${escapeXml(result.createdAt.replace(/\.\d+Z$/, ''))}" hostname="${escapeXml(host)}">`,
        ...cases.map((entry) => entry.xml),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="aifabric check" tests="${totalTests}" failures="${totalFailures}" errors="0" skipped="0" time="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
