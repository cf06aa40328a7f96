// The report as one self-contained HTML file (conformance-report.html, beside the JSON and the
// JUnit): no script, no stylesheet, font or image from anywhere, so it reads the same opened from a
// CI artifact. Rendered from the report model: the coverage matrix (operations by documented
// status, each cell provoked and held, provoked and failed, or not provoked with why), part 7's
// codes, what would unlock more, the findings grouped by rule with their requests and answers,
// and the scenarios by operation (a workflow's with its steps).
import type { ScenarioOutcome } from '../findings.js';
import type { CoverageCell } from './coverage.js';
import type { FindingGroup } from './finding-groups.js';
import { rerunCommand, type ConformanceReport } from './report.js';

const escape = (text: unknown): string =>
  String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.meta{color:#57606a}table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}.matrix td.cell{text-align:center;min-width:46px;font-family:ui-monospace,monospace;font-size:12px}
td.passed{background:#dafbe1}td.failed{background:#ffd8d3;font-weight:700}td.not-provoked{background:#eaeef2;color:#57606a}td.none{background:#fff}
.code{display:block;font-size:11px;white-space:nowrap}.legend span{display:inline-block;padding:1px 8px;margin-right:8px;border:1px solid #d0d7de}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:6px;white-space:pre-wrap;word-break:break-all;font-size:12px;margin:4px 0}
details{border:1px solid #d0d7de;border-radius:4px;padding:6px 10px;margin:8px 0}details.fail{border-left:4px solid #cf222e}details.advisory{border-left:4px solid #bf8700}
summary{cursor:pointer;font-weight:600}.muted{color:#57606a}.pill{font-size:11px;border-radius:8px;padding:0 6px;background:#eaeef2;margin-left:6px}
ol.reasons li{margin:2px 0}ol.steps{margin:2px 0;padding-left:20px;font-size:12px}li.step.failed,li.step.refused{color:#cf222e}
`;

function cellHtml(cells: CoverageCell[], status: string, footnote: (cell: CoverageCell) => number): string {
  const own = cells.find((c) => c.status === status && c.code === undefined);
  if (!own) return '<td class="cell none"></td>';
  const mark = (cell: CoverageCell) => (cell.state === 'passed' ? '✓' : cell.state === 'failed' ? '✗' : `–<sup>${footnote(cell)}</sup>`);
  const title = (cell: CoverageCell) =>
    cell.state === 'not-provoked' ? `not provoked: ${cell.reason ?? ''}` : `provoked at ${cell.level === 'mock' ? "the mock's own accounts" : `level ${cell.level}`}${cell.state === 'failed' ? ', and its answer failed' : ''}`;
  const codes = cells
    .filter((c) => c.status === status && c.code !== undefined)
    .map((c) => `<span class="code" title="${escape(title(c))}">${escape(c.code)} ${mark(c)}</span>`)
    .join('');
  return `<td class="cell ${own.state}" title="${escape(title(own))}" data-state="${own.state}">${mark(own)}${codes}</td>`;
}

function findingHtml(group: FindingGroup): string {
  const rows: string[] = [];
  const add = (label: string, value: string) => rows.push(`<tr><th>${escape(label)}</th><td>${value}</td></tr>`);
  add('operation', `${escape(group.operationId)}${group.status !== undefined ? `, answered ${group.status}` : ''}`);
  if (group.at) add('where', `<code>${escape(group.at)}</code>`);
  if (group.rule?.schema) add('rule in the contract', `<code>${escape(`${group.rule.schema.pointer}/${group.rule.keyword}`)}</code>${group.rule.schema.component ? ` (${escape(group.rule.schema.component)})` : ''}`);
  if (group.part) add('part', escape(group.part));
  if (group.expected !== undefined) add('expected', `<code>${escape(JSON.stringify(group.expected))}</code>`);
  if (group.actual !== undefined) add('actual', `<code>${escape(typeof group.actual === 'string' ? group.actual : JSON.stringify(group.actual))}</code>`);
  if (group.nearMiss?.length) add('near miss', `${group.nearMiss.map((n) => `<code>${escape(n)}</code>`).join(', ')} is present instead: renamed?`);
  if (group.branch) add('union branch judged', escape(group.branch.words));
  if (group.also.length) add('also, from the same answer', group.also.map(escape).join('<br>'));
  add('seen', `${group.count} time(s) in ${group.requests} request(s), by: ${group.scenarios.map(escape).join('; ')}`);
  const example = group.example;
  const answer = example.answer ? `<pre>${escape(`${example.answer.status}${example.answer.contentType ? ` ${example.answer.contentType}` : ''}\n${example.answer.body ?? ''}`)}</pre>` : '';
  return `<details class="${group.verdict}" id="finding-${escape(group.id)}" open><summary>${group.verdict === 'fail' ? 'FAIL' : 'ADVISORY'} ${escape(group.title)}<span class="pill">${group.count}×</span><span class="pill">finding ${escape(group.id)}</span></summary>
<table>${rows.join('')}</table>
${example.request ? `<div>Request: <code>${escape(example.request)}</code></div>` : ''}
${example.curl ? `<pre>${escape(example.curl)}</pre>` : ''}
${example.sent ? `<div class="muted">Send it again: <code>${escape(rerunCommand(group.id))}</code></div>` : ''}
${answer ? `<div>Answer:</div>${answer}` : ''}
</details>`;
}

/** A workflow scenario's steps, in order, each with its outcome and status. */
function stepsHtml(steps: ScenarioOutcome['steps']): string {
  if (!steps?.length) return '';
  const item = (step: NonNullable<ScenarioOutcome['steps']>[number]) =>
    `<li class="step ${escape(step.outcome)}">${escape(step.stepId)}: ${escape(step.outcome)}, ${escape(step.runs)}${step.status !== undefined ? ` → ${step.status}` : ''}${step.notes?.length ? `<div class="muted">${escape(step.notes.join('; '))}</div>` : ''}</li>`;
  return `<ol class="steps">${steps.map(item).join('')}</ol>`;
}

export function formatHtml(report: ConformanceReport): string {
  const statuses = [...new Set(report.coverage.flatMap((row) => row.documented))].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  const reasons: string[] = [];
  const footnote = (cell: CoverageCell): number => {
    const text = `${cell.reason ?? 'not provoked'}${cell.unlock ? ` (unlock: ${cell.unlock})` : ''}`;
    let index = reasons.indexOf(text);
    if (index < 0) index = reasons.push(text) - 1;
    return index + 1;
  };
  const matrix = report.coverage
    .map((row) => `<tr><th>${escape(row.operationId)}<div class="muted">${escape(`${row.method} ${row.path}`)}</div></th>${statuses.map((s) => cellHtml(row.cells, s, footnote)).join('')}</tr>`)
    .join('\n');
  const sum = report.coverageSummary;
  const byCheck = new Map<string, FindingGroup[]>();
  for (const group of report.findings) byCheck.set(group.check, [...(byCheck.get(group.check) ?? []), group]);
  const findings = [...byCheck]
    .map(([check, groups]) => `<h3>${escape(check)}${groups[0]?.part ? ` <span class="muted">(part ${escape(groups[0].part)})</span>` : ''}</h3>\n${groups.map(findingHtml).join('\n')}`)
    .join('\n');
  const codes = report.codes
    .map((c) => `<tr><td><code>${escape(c.code)}</code>${c.inferred ? ' <span class="muted">(inferred)</span>' : ''}</td><td>${escape(c.status)}</td><td>${c.provokedAt.length ? `provoked: ${escape(c.provokedAt.join(', '))}` : `not provoked: ${escape(c.reason ?? '')}`}</td></tr>`)
    .join('\n');
  const scenarios = report.operations
    .flatMap((op) => op.scenarios.map((s) => `<tr><td>${escape(op.operationId)}</td><td>${escape(s.verdict)}</td><td>${escape(s.title)}${s.skipReason ? `<div class="muted">${escape(s.skipReason)}</div>` : ''}${stepsHtml(s.steps)}</td></tr>`))
    .join('\n');
  const t = report.totals;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance of ${escape(report.baseUrl)} (level ${escape(report.level)})</title>
<style>${STYLE}</style></head>
<body>
<h1>Conformance of ${escape(report.baseUrl)}</h1>
<div class="meta">Level ${escape(report.level)} · ${escape(report.generatedAt)} · scenarios: ${t.pass} passed, ${t.fail} failed, ${t.advisory} advisory, ${t.skip} skipped, ${t['not-applicable']} not applicable</div>
${report.stopped ? `<h2>Stopped</h2><pre>${escape(report.stopped.message)}</pre>` : ''}
<h2 id="coverage">Coverage</h2>
<p>Documented statuses provoked: <strong>${sum.provoked}/${sum.statuses}</strong> (${sum.byLevel.contract} at level contract, ${sum.byLevel.writes} at level writes, ${sum.byLevel.mock} on accounts the suite signed up on the mock)${sum.failed ? `; ${sum.failed} answered wrongly` : ''}. Part 7 codes: ${sum.codes.provoked} of ${sum.codes.total} provoked, ${sum.codes.explained} explained.</p>
<p class="legend"><span class="passed" style="background:#dafbe1">✓ provoked, answer held</span><span style="background:#ffd8d3">✗ provoked, answer failed</span><span style="background:#eaeef2">– not provoked (see why)</span></p>
<table class="matrix"><thead><tr><th>operation</th>${statuses.map((s) => `<th>${escape(s)}</th>`).join('')}</tr></thead><tbody>
${matrix}
</tbody></table>
<h3 id="why">Not provoked, and why</h3>
<ol class="reasons">${reasons.map((r) => `<li>${escape(r)}</li>`).join('')}</ol>
<h3>Part 7 codes</h3>
<table><thead><tr><th>code</th><th>status</th><th></th></tr></thead><tbody>${codes}</tbody></table>
${report.unlocks.length ? `<h3>What would let the suite provoke more</h3><ul>${report.unlocks.map((u) => `<li><code>${escape(u.unlock)}</code>: ${escape(u.what.join(', '))}</li>`).join('')}</ul>` : ''}
<h2 id="findings">Findings, grouped by rule</h2>
${findings || '<p>None: every answer held.</p>'}
<h2 id="scenarios">Scenarios</h2>
<table><thead><tr><th>operation</th><th>verdict</th><th>scenario</th></tr></thead><tbody>${scenarios}</tbody></table>
</body></html>
`;
}
