// The report as one self-contained HTML file (conformance-report.html, beside the JSON and the
// JUnit): no script, no stylesheet, font or image from anywhere, so it reads the same opened from a
// CI artifact. Rendered from the report model: the coverage in figures, what answered wrongly,
// then one row per operation with a chip per documented status and code (provoked and held,
// provoked and failed, asked for and another status came, or not provoked with why) and the
// undocumented statuses it answered; part 7's codes, what would unlock more, the findings grouped
// by rule with their requests and answers, and the scenarios by operation (a workflow's with its
// steps). Chips rather than a table of operations by status: each operation documents a few of
// some twenty statuses, so a table is mostly empty cells and wider than a window (1,800 px); a
// row of chips wraps at any width, 390 px included, and every chip names its own status.
import type { ScenarioOutcome } from '../findings.js';
import type { CoverageCell } from './coverage.js';
import { authNote } from './explain.js';
import type { FindingGroup } from './finding-groups.js';
import { rerunCommand, type ConformanceReport, type CoverageRow } from './report.js';

const escape = (text: unknown): string =>
  String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const STYLE = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1b1f24;background:#fff;overflow-wrap:break-word}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.meta,.muted{color:#57606a}code{font-family:ui-monospace,monospace;font-size:12px}a{color:#0969da}td code,.op .name code{overflow-wrap:anywhere}
table{border-collapse:collapse;margin:8px 0;max-width:100%}th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f6f8fa;font-weight:600}
.tiles{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}.tile{border:1px solid #d0d7de;border-radius:6px;padding:4px 10px;flex:1 1 10rem;max-width:16rem;color:#57606a}.tile b{display:block;font-size:20px;color:#1b1f24}
.tile.passed{background:#dafbe1;color:#116329}.tile.bad{background:#ffebe9;border-color:#cf222e;color:#a40e26}.tile.bad b{color:#a40e26}.tile.not-provoked{background:#eaeef2}
ul.chips{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px}ul.chips>li{display:inline-flex;flex-wrap:wrap;gap:2px;align-items:center}
.chip{display:inline-block;font:12px/20px ui-monospace,monospace;padding:0 6px;border-radius:10px;border:1px solid transparent;white-space:nowrap;text-decoration:none;color:inherit}
.chip sup{line-height:0;font-size:9px}.chip.code{font-size:11px}ul.chips>li.with-codes{border:1px solid #d0d7de;border-radius:12px;padding:1px}
.chip.passed{background:#dafbe1;color:#116329;border-color:#aceebb}
.chip.failed,.chip.answered-otherwise{background:#cf222e;color:#fff;font-weight:700}
.chip.not-provoked{background:#eaeef2;color:#57606a}.chip.not-provoked a{color:inherit}
.chip.undocumented{background:#fff;color:#a40e26;border:1px dashed #cf222e;font-weight:700}
.legend{display:flex;flex-wrap:wrap;gap:6px 12px;margin:8px 0;font-size:13px}
.ops{border-top:1px solid #d0d7de}.op{display:grid;grid-template-columns:minmax(0,18rem) minmax(0,1fr);gap:4px 16px;padding:6px 8px;border-bottom:1px solid #d0d7de;border-left:4px solid transparent}
.op.problem{border-left-color:#cf222e;background:#fff8f7}.op .name{font-weight:600}.op .name code{display:block;font-weight:400;color:#57606a}.op .name .muted{font-weight:400;font-size:12px}
.attention li{margin:2px 0}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:6px;white-space:pre-wrap;word-break:break-all;font-size:12px;margin:4px 0}
details{border:1px solid #d0d7de;border-radius:4px;padding:6px 10px;margin:8px 0}details.fail{border-left:4px solid #cf222e}details.advisory{border-left:4px solid #bf8700}
summary{cursor:pointer;font-weight:600}.pill{font-size:11px;border-radius:8px;padding:0 6px;background:#eaeef2;margin-left:6px;white-space:nowrap}
.note{background:#fff8c5;border:1px solid #d4a72c;border-radius:4px;padding:4px 8px;margin:4px 0}
ol.reasons li{margin:4px 0}ol.steps{margin:2px 0;padding-left:20px;font-size:12px}li.step.failed,li.step.refused{color:#cf222e}
@media (max-width:640px){body{margin:12px}.tile{flex-basis:9rem;padding:2px 8px}.tile b{font-size:17px}.op{grid-template-columns:minmax(0,1fr)}
table.stack,table.stack tbody,table.stack tr,table.stack td,table.stack th{display:block;width:100%}table.stack thead{display:none}table.stack tr{border:1px solid #d0d7de;margin:0 0 6px}table.stack td,table.stack th{border:0}table.scenarios td:nth-child(-n+2){display:inline-block;width:auto;font-weight:600;padding-bottom:0}}
`;

/** The finding about an operation's answer with `status`, to link a chip to it. */
function findingFor(findings: readonly FindingGroup[], operationId: string, statuses: readonly number[]): FindingGroup | undefined {
  return findings.find((g) => g.verdict === 'fail' && g.operationId === operationId && g.status !== undefined && statuses.includes(g.status));
}

const LEVEL_WORDS = (cell: CoverageCell): string => (cell.level === 'mock' ? "on accounts the suite signed up on the mock" : `at level ${cell.level}`);

/** One chip: its status or code, its mark, and what it means in its title; a link to its finding or its reason. */
function chipHtml(cell: CoverageCell, label: string, row: CoverageRow, findings: readonly FindingGroup[], footnote: (cell: CoverageCell) => number): string {
  const code = cell.code !== undefined ? ' code' : '';
  const data = `data-state="${cell.state}" data-target="${escape(`${row.operationId} ${cell.status}${cell.code ? ` ${cell.code}` : ''}`)}"`;
  if (cell.state === 'not-provoked') {
    const n = footnote(cell);
    return `<span class="chip not-provoked${code}" ${data} title="${escape(`not provoked: ${cell.reason ?? ''}`)}">${escape(label)} –<sup><a href="#why-${n}">${n}</a></sup></span>`;
  }
  const came = cell.came ?? [];
  const finding = findingFor(findings, row.operationId, cell.state === 'answered-otherwise' ? came.map((c) => Number.parseInt(c, 10)) : [Number(cell.status)]);
  const [mark, title] =
    cell.state === 'passed'
      ? ['✓', `provoked ${LEVEL_WORDS(cell)}, and its answer held`]
      : cell.state === 'failed'
        ? ['✗', `provoked ${LEVEL_WORDS(cell)}, and its answer failed`]
        : [`→ ${came.join(', ')}`, cell.reason ?? `asked for, and ${came.join(', ')} came instead`];
  const tag = finding ? 'a' : 'span';
  return `<${tag} class="chip ${cell.state}${code}" ${data}${finding ? ` href="#finding-${escape(finding.id)}"` : ''} title="${escape(title)}">${escape(label)} ${escape(mark)}</${tag}>`;
}

/** An operation's row: its name and request, a chip per documented status (its codes beside it), and the undocumented statuses it answered. */
function operationRow(row: CoverageRow, findings: readonly FindingGroup[], footnote: (cell: CoverageCell) => number): string {
  const groups = row.documented.map((status) => {
    const cells = row.cells.filter((c) => c.status === status);
    const own = cells.find((c) => c.code === undefined);
    const codes = cells.filter((c) => c.code !== undefined).map((c) => chipHtml(c, c.code!, row, findings, footnote));
    return `<li${codes.length ? ' class="with-codes"' : ''}>${own ? chipHtml(own, status, row, findings, footnote) : `<span class="chip">${escape(status)}</span>`}${codes.join('')}</li>`;
  });
  const undocumented = row.undocumentedSeen.map((status) => {
    const finding = findingFor(findings, row.operationId, [Number(status)]);
    const tag = finding ? 'a' : 'span';
    return `<li><${tag} class="chip undocumented" data-undocumented="${escape(status)}"${finding ? ` href="#finding-${escape(finding.id)}"` : ''} title="answered ${escape(status)}, which ${escape(row.operationId)} does not document">${escape(status)} not documented</${tag}></li>`;
  });
  const problem = row.undocumentedSeen.length > 0 || row.cells.some((c) => c.state === 'failed' || c.state === 'answered-otherwise');
  return `<div class="op${problem ? ' problem' : ''}" id="coverage-${escape(row.operationId)}"><div class="name">${escape(row.operationId)}<code>${escape(`${row.method} ${row.path}`)}</code>${row.notSentReason ? `<div class="muted">never sent: ${escape(row.notSentReason)}</div>` : ''}</div><ul class="chips">${[...groups, ...undocumented].join('')}</ul></div>`;
}

/** What answered wrongly, one line per operation, linking to its row and its findings: what a person looks at first. */
function attentionHtml(report: ConformanceReport): string {
  const lines: string[] = [];
  for (const row of report.coverage) {
    const what: string[] = [];
    for (const cell of row.cells.filter((c) => c.code === undefined && (c.state === 'failed' || c.state === 'answered-otherwise'))) {
      what.push(cell.state === 'failed' ? `${escape(cell.status)} came, and its answer broke a rule` : `asked for ${escape(cell.status)}, and ${escape(cell.came?.join(', '))} came`);
    }
    if (row.undocumentedSeen.length) what.push(`answered ${escape(row.undocumentedSeen.join(', '))}, which it does not document`);
    if (what.length) lines.push(`<li><a href="#coverage-${escape(row.operationId)}">${escape(row.operationId)}</a>: ${what.join('; ')}</li>`);
  }
  return lines.length ? `<h3 id="attention">Answered wrongly</h3><ul class="attention">${lines.join('')}</ul>` : '';
}

function findingHtml(group: FindingGroup, reportDir: string | undefined): string {
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
  // A key the suite did not keep: what the curl's variable is and how to get one.
  const note = authNote(example.sent);
  const answer = example.answer ? `<pre>${escape(`${example.answer.status}${example.answer.contentType ? ` ${example.answer.contentType}` : ''}\n${example.answer.body ?? ''}`)}</pre>` : '';
  return `<details class="${group.verdict}" id="finding-${escape(group.id)}" open><summary>${group.verdict === 'fail' ? 'FAIL' : 'ADVISORY'} ${escape(group.title)}<span class="pill">${group.count}×</span><span class="pill">finding ${escape(group.id)}</span></summary>
<table class="stack">${rows.join('')}</table>
${example.request ? `<div>Request: <code>${escape(example.request)}</code></div>` : ''}
${example.curl ? `<pre>${escape(example.curl)}</pre>` : ''}
${note ? `<p class="note">${escape(note)}</p>` : ''}
<div class="muted">Judge it again: <code>${escape(rerunCommand(group, reportDir))}</code></div>
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

/** The report as HTML; `reportDir`: where it is written, for the findings' rerun lines. */
export function formatHtml(report: ConformanceReport, reportDir?: string): string {
  const reasons: string[] = [];
  const footnote = (cell: CoverageCell): number => {
    const text = `${cell.reason ?? 'not provoked'}${cell.unlock ? ` (unlock: ${cell.unlock})` : ''}`;
    let index = reasons.indexOf(text);
    if (index < 0) index = reasons.push(text) - 1;
    return index + 1;
  };
  const rows = report.coverage.map((row) => operationRow(row, report.findings, footnote)).join('\n');
  const sum = report.coverageSummary;
  const undocumented = report.coverage.reduce((n, row) => n + row.undocumentedSeen.length, 0);
  const notProvoked = sum.statuses - sum.provoked - sum.answeredOtherwise;
  const byCheck = new Map<string, FindingGroup[]>();
  for (const group of report.findings) byCheck.set(group.check, [...(byCheck.get(group.check) ?? []), group]);
  const findings = [...byCheck]
    .map(([check, groups]) => `<h3>${escape(check)}${groups[0]?.part ? ` <span class="muted">(part ${escape(groups[0].part)})</span>` : ''}</h3>\n${groups.map((group) => findingHtml(group, reportDir)).join('\n')}`)
    .join('\n');
  const failing = report.findings.filter((g) => g.verdict === 'fail').length;
  const codes = report.codes
    .map((c) => `<tr><td><code>${escape(c.code)}</code>${c.inferred ? ' <span class="muted">(inferred)</span>' : ''}</td><td>${escape(c.status)}</td><td>${c.provokedAt.length ? `provoked: ${escape(c.provokedAt.join(', '))}` : `not provoked: ${escape(c.reason ?? '')}`}</td></tr>`)
    .join('\n');
  const scenarios = report.operations
    .flatMap((op) => op.scenarios.map((s) => `<tr><td>${escape(op.operationId)}</td><td>${escape(s.verdict)}</td><td>${escape(s.title)}${s.skipReason ? `<div class="muted">${escape(s.skipReason)}</div>` : ''}${stepsHtml(s.steps)}</td></tr>`))
    .join('\n');
  const t = report.totals;
  const tile = (cls: string, count: number, words: string, href?: string) => `<div class="tile ${cls}" data-tile="${escape(words)}"><b>${count}</b>${href && count ? `<a href="${href}">${escape(words)}</a>` : escape(words)}</div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance of ${escape(report.baseUrl)} (level ${escape(report.level)})</title>
<style>${STYLE}</style></head>
<body>
<h1>Conformance of ${escape(report.baseUrl)}</h1>
<div class="meta">Level ${escape(report.level)} · ${escape(report.generatedAt)} · scenarios: ${t.pass} passed, ${t.fail} failed, ${t.advisory} advisory, ${t.skip} skipped, ${t['not-applicable']} not applicable · <a href="#findings">findings: ${failing} failing, ${report.findings.length - failing} advisory</a></div>
${report.stopped ? `<h2>Stopped</h2><pre>${escape(report.stopped.message)}</pre>` : ''}
<h2 id="coverage">Coverage</h2>
<p>Of <strong>${sum.statuses}</strong> documented statuses (${sum.byLevel.contract} provoked at level contract, ${sum.byLevel.writes} at level writes, ${sum.byLevel.mock} on accounts the suite signed up on the mock). Part 7 codes: ${sum.codes.provoked} of ${sum.codes.total} provoked, ${sum.codes.explained} explained.</p>
<div class="tiles">${tile('passed', sum.provoked - sum.failed, 'provoked, answer held')}${tile(sum.failed ? 'bad' : '', sum.failed, 'provoked, answer failed', '#attention')}${tile(sum.answeredOtherwise ? 'bad' : '', sum.answeredOtherwise, 'asked for, another status came', '#attention')}${tile(undocumented ? 'bad' : '', undocumented, 'undocumented statuses seen', '#attention')}${tile('not-provoked', notProvoked, 'not provoked (see why)', '#why')}</div>
${attentionHtml(report)}
<div class="legend"><span><span class="chip passed">200 ✓</span> provoked, answer held</span><span><span class="chip failed">200 ✗</span> provoked, answer failed</span><span><span class="chip answered-otherwise">402 → 500</span> asked for, 500 came</span><span><span class="chip not-provoked">409 –<sup>1</sup></span> not provoked, reason 1</span><span><span class="chip undocumented">500 not documented</span> answered, not documented</span><span><span class="chip passed code">rate_limited ✓</span> a part 7 code of the status before it</span></div>
<div class="ops">
${rows}
</div>
<h3 id="why">Not provoked, and why</h3>
<ol class="reasons">${reasons.map((r, i) => `<li id="why-${i + 1}">${escape(r)}</li>`).join('')}</ol>
<h3>Part 7 codes</h3>
<table class="stack"><thead><tr><th>code</th><th>status</th><th></th></tr></thead><tbody>${codes}</tbody></table>
${report.unlocks.length ? `<h3>What would let the suite provoke more</h3><ul>${report.unlocks.map((u) => `<li><code>${escape(u.unlock)}</code>: ${escape(u.what.join(', '))}</li>`).join('')}</ul>` : ''}
<h2 id="findings">Findings, grouped by rule</h2>
${findings || '<p>None: every answer held.</p>'}
<h2 id="scenarios">Scenarios</h2>
<table class="stack scenarios"><thead><tr><th>operation</th><th>verdict</th><th>scenario</th></tr></thead><tbody>${scenarios}</tbody></table>
</body></html>
`;
}
