// JUnit XML from the report model, for CI. Suites are the checks, named by part and check
// (`auth-required (part 5.1)`); cases are the scenarios, named by operation and title; failing
// findings are <failure>, advisories <properties>, skips and rules that do not apply <skipped>
// with their reason, operations never sent skipped cases of their own suite, and a run that
// stopped (usage error, a base URL that is not this API, an account that cannot run the level)
// one <error> case, so a CI step that uploads junit.xml always finds the reason.
// Written here rather than by vitest's JUnit reporter: that one names suites by file
// (`slice-1.conformance.js`), drops skip reasons, and cannot write when the run stops before vitest.
import type { Finding, ScenarioOutcome } from '../findings.js';
import { authNote } from './explain.js';
import type { ConformanceReport } from './report.js';

interface Case {
  name: string;
  seconds: number;
  failure?: { message: string; text: string };
  error?: { message: string; text: string };
  skipped?: string;
  properties: { name: string; value: string }[];
}

const escape = (text: string): string =>
  text
    // Characters XML 1.0 cannot carry at all.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** The suite a check's cases go in: `auth-required (part 5.1)`. */
export function suiteName(check: string, part?: string): string {
  return part ? `${check} (part ${part})` : check;
}

function findingText(f: Finding, report: ConformanceReport): string {
  // The group the finding belongs to: its id for --rerun, and its curl.
  const group = report.findings.find((g) => g.check === f.check && g.operationId === f.operationId && g.status === f.status && (g.example.request === f.request || g.title === f.reason));
  const note = authNote(group?.example.sent);
  return `[${f.check}${f.part ? `, part ${f.part}` : ''}] ${f.reason}${f.request ? `\n  request: ${f.request}` : ''}${group ? `\n  finding ${group.id}${group.example.curl ? `\n  ${group.example.curl}` : ''}${note ? `\n  (${note})` : ''}` : ''}`;
}

function scenarioCase(s: ScenarioOutcome, report: ConformanceReport): Case {
  const failed = s.findings.filter((f) => f.verdict === 'fail');
  const properties = [
    ...s.findings.filter((f) => f.verdict === 'advisory').map((f) => ({ name: 'advisory', value: `${f.check}: ${f.reason}${f.request ? ` (${f.request})` : ''}` })),
    ...s.notes.map((n) => ({ name: 'restored', value: n })),
    // A workflow's steps are its checks: each one's outcome, what it ran and its status.
    ...(s.steps ?? []).map((step) => ({ name: 'step', value: `${step.stepId}: ${step.outcome}, ${step.runs}${step.status !== undefined ? ` → ${step.status}` : ''}${step.notes?.length ? ` (${step.notes.join('; ')})` : ''}` })),
  ];
  const c: Case = { name: `${s.operationId}: ${s.title}`, seconds: (s.durationMs ?? 0) / 1000, properties };
  if (failed.length) c.failure = { message: failed[0]!.reason, text: failed.map((f) => findingText(f, report)).join('\n') };
  else if (s.verdict === 'skip' || s.verdict === 'not-applicable') c.skipped = `${s.verdict === 'not-applicable' ? 'not applicable: ' : ''}${s.skipReason ?? 'skipped'}`;
  return c;
}

function suiteXml(name: string, cases: Case[]): string {
  const count = (pick: (c: Case) => unknown) => cases.filter(pick).length;
  const seconds = cases.reduce((sum, c) => sum + c.seconds, 0);
  const lines = [
    `  <testsuite name="${escape(name)}" tests="${cases.length}" failures="${count((c) => c.failure)}" errors="${count((c) => c.error)}" skipped="${count((c) => c.skipped !== undefined)}" time="${seconds.toFixed(3)}">`,
  ];
  for (const c of cases) {
    const open = `    <testcase classname="${escape(name)}" name="${escape(c.name)}" time="${c.seconds.toFixed(3)}"`;
    if (!c.properties.length && !c.failure && !c.error && c.skipped === undefined) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    if (c.properties.length) {
      lines.push('      <properties>');
      for (const p of c.properties) lines.push(`        <property name="${escape(p.name)}" value="${escape(p.value)}"/>`);
      lines.push('      </properties>');
    }
    if (c.failure) lines.push(`      <failure message="${escape(c.failure.message)}" type="ConformanceFailure">${escape(c.failure.text)}</failure>`);
    if (c.error) lines.push(`      <error message="${escape(c.error.message)}" type="RunStopped">${escape(c.error.text)}</error>`);
    if (c.skipped !== undefined) lines.push(`      <skipped message="${escape(c.skipped)}"/>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>');
  return lines.join('\n');
}

export function formatJUnit(report: ConformanceReport): string {
  const suites = new Map<string, Case[]>();
  const add = (name: string, c: Case) => suites.set(name, [...(suites.get(name) ?? []), c]);
  if (report.stopped) {
    add('conformance run', { name: `stopped with exit code ${report.stopped.exitCode}`, seconds: 0, error: { message: report.stopped.message, text: report.stopped.message }, properties: [] });
  }
  for (const op of report.operations) {
    if (op.verdict === 'not sent') add('never sent (safety policy)', { name: `${op.operationId}: never sent: ${op.notSentReason}`, seconds: 0, skipped: op.notSentReason, properties: [] });
    for (const s of op.scenarios) add(suiteName(s.check, s.part), scenarioCase(s, report));
  }
  const all = [...suites.values()].flat();
  const count = (pick: (c: Case) => unknown) => all.filter(pick).length;
  const seconds = all.reduce((sum, c) => sum + c.seconds, 0);
  const title = `numbers-api conformance of ${report.baseUrl || '(no base URL)'} (level ${report.level || 'contract'})`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escape(title)}" tests="${all.length}" failures="${count((c) => c.failure)}" errors="${count((c) => c.error)}" skipped="${count((c) => c.skipped !== undefined)}" time="${seconds.toFixed(3)}">`,
    ...[...suites].map(([name, cases]) => suiteXml(name, cases)),
    '</testsuites>',
    '',
  ].join('\n');
}
