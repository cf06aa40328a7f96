// The Workflows pages, drawn FROM generated/workflows.arazzo.json (never by hand): an index of the
// contract's Arazzo workflows, and a page per workflow with its steps in order, what each sends and
// where each value comes from (a runtime expression read as "from step X's Y"), what makes it pass,
// what it keeps for later steps, each step linked to its operation in the reference and, where it
// cites part 3, to the state diagrams of the machines the workflow walks (`x-state-machines`).
// Each page carries the workflow (and the workflows it runs) as JSON for its "Run this workflow"
// button (docs/build/browser/try-it/workflow-run.ts), which plays it with the package's one runner
// against the in-page mock. The guides' `workflow <id>` regions are rendered here too, as HTML for
// the site and as Markdown for the committed sources.
import { readGeneratedJson } from '../../src/contract/generated-files.ts';
import { criterionExpressions, expressionsIn, parseValue } from '../../src/contract/runtime-expression.ts';
import { stepOperation, workflowsReached } from '../../src/workflows/arazzo-runner.ts';
import { expressionWords } from '../../src/workflows/expression-words.ts';
import { operationTable, operationsUsed } from '../../src/workflows/step-request.ts';
import { escapeHtml, markdownBlock, markdownInline, slug } from './html.mjs';

export const arazzo = readGeneratedJson('workflows.arazzo.json');
const workflows = arazzo.workflows ?? [];

/** The site page of a workflow. */
export const workflowPageFile = (workflowId) => `workflow-${workflowId}.html`;

/** The workflows' pages for the site's page list (docs/build/layout.mjs). */
export function workflowPageEntries() {
  return workflows.map((w) => ({ file: workflowPageFile(w.workflowId), title: `Workflow: ${w.workflowId}`, nav: w.workflowId, group: 'Guides', hidden: true, workflow: w.workflowId }));
}

function workflowById(id) {
  const found = workflows.find((w) => w.workflowId === id);
  if (!found) throw new Error(`no workflow "${id}" in generated/workflows.arazzo.json (have: ${workflows.map((w) => w.workflowId).join(', ')})`);
  return found;
}

/** A step's operation as `{ source, operationId, method, path }`, or undefined for a step that runs a workflow. */
function operationOf(step, sources) {
  const target = stepOperation(step);
  if (!target) return undefined;
  const op = sources.table[target.source]?.[target.operationId];
  if (!op) throw new Error(`a workflow step names ${step.operationId}, which ${target.source} does not have`);
  return { ...target, method: op.method.toUpperCase(), path: op.path };
}

/** Cites part 3 (the state tables): `Part 3`, `Parts 2 and 3`, `Parts 3, 6 and 7.2`. */
const CITES_PART_3 = /\bParts? (?:[\d.]+(?:, | and ))*3(?![.\d])/;

/** A value a step sends, as `[html, markdown]`: an expression in words, text with `{$…}` parts, or a literal. */
function valueText(value, steps) {
  const parsed = typeof value === 'string' ? parseValue(value) : { parts: [] };
  if (parsed.expression) {
    const words = expressionWords(parsed.expression, steps);
    return [escapeHtml(words), words];
  }
  if (parsed.parts.some((part) => typeof part !== 'string')) {
    const words = parsed.parts.map((part) => (typeof part === 'string' ? part : `{${expressionWords(part, steps)}}`)).join('');
    return [`<code>${escapeHtml(words)}</code>`, `\`${words}\``];
  }
  const json = JSON.stringify(value);
  return [`<code>${escapeHtml(json)}</code>`, `\`${json}\``];
}

/** What a step sends: one `[where, name, value]` per parameter and body field (the key's header once). */
function sends(step, steps) {
  const rows = [];
  for (const parameter of step.parameters ?? []) {
    if (parameter.reference) {
      rows.push(['header', 'Authorization', ['the key (input apiKey)', 'the key (input apiKey)']]);
      continue;
    }
    rows.push([step.workflowId ? 'input' : parameter.in, parameter.name, valueText(parameter.value, steps)]);
  }
  const payload = step.requestBody?.payload;
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    const flatten = (object, prefix) =>
      Object.entries(object).flatMap(([name, value]) =>
        value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0 ? flatten(value, `${prefix}${name}.`) : [['body', `${prefix}${name}`, valueText(value, steps)]],
      );
    rows.push(...flatten(payload, ''));
  } else if (payload !== undefined) rows.push(['body', '', valueText(payload, steps)]);
  return rows;
}

/** A criterion as text. */
const criterionText = (c) => (c.type && c.type !== 'simple' ? `${c.context} matches ${typeof c.type === 'object' ? c.type.type : c.type} ${c.condition}` : c.condition);

/** The actions of a step, in words. */
function actionsText(step) {
  const describe = (a, when) => {
    const on = a.criteria?.length ? ` when ${a.criteria.map(criterionText).join(' and ')}` : '';
    if (a.type === 'goto') return `${when}: go to ${a.stepId ? `step ${a.stepId}` : `workflow ${a.workflowId}`}${on}`;
    if (a.type === 'retry') return `${when}: retry (at most ${a.retryLimit ?? 1} times${a.retryAfter ? `, ${a.retryAfter} s apart` : ''})${on}`;
    return `${when}: end the workflow${on}`;
  };
  return [...(step.onSuccess ?? []).map((a) => describe(a, 'On success')), ...(step.onFailure ?? []).map((a) => describe(a, 'On failure'))];
}

/** The contract's documents a page is drawn from. */
function sourcesOf({ openapi, mockControl, linkOperation }) {
  return { openapi, linkOperation, machines: openapi['x-state-machines'] ?? {}, table: operationTable({ numbersApi: openapi, mockControl }) };
}

/** The link of a step's operation: the reference for the service, the mock page's control surface for the mock. */
function operationLink(op, sources) {
  if (op.source === 'mockControl') return 'mock.html#the-control-surface';
  return sources.linkOperation(`${op.method} ${op.path}`);
}

/** The state diagrams a step links to: the workflow's machines, where the step cites part 3. */
function machinesOf(workflow, step, sources) {
  const names = workflow['x-state-machines'] ?? [];
  for (const name of names) if (!sources.machines[name]) throw new Error(`workflow ${workflow.workflowId} names x-state-machines "${name}", which the OpenAPI description does not have`);
  return CITES_PART_3.test(String(step.description ?? '')) ? names : [];
}

/** Where a step's output comes from, in words: an output of the workflow the step runs, or its expression's words. */
function originWords(step, origin, steps) {
  const [expression] = expressionsIn(origin);
  if (step.workflowId) return `output ${expression?.root === '$outputs' ? expression.name : origin} of workflow ${step.workflowId}`;
  return expression ? expressionWords(expression, steps) : String(origin);
}

/** Whether a step reads the output `name` of step `stepId` (in a parameter, its body or a criterion). */
function readsOutput(step, stepId, name) {
  const read = [...expressionsIn([(step.parameters ?? []).map((p) => p.value), step.requestBody?.payload]), ...(step.successCriteria ?? []).flatMap(criterionExpressions)];
  return read.some((e) => e.root === '$steps' && e.stepId === stepId && e.name === name);
}

/** What flows between the steps: each output kept, where it comes from, and the steps that use it. */
function flows(workflow) {
  const steps = workflow.steps ?? [];
  return steps.flatMap((step) =>
    Object.entries(step.outputs ?? {}).map(([name, origin]) => ({
      step: step.stepId,
      name,
      origin: originWords(step, origin, steps),
      usedBy: steps.filter((s) => s !== step && readsOutput(s, step.stepId, name)).map((s) => s.stepId),
    })),
  );
}

function stepHtml(workflow, step, index, sources) {
  const steps = workflow.steps ?? [];
  const op = operationOf(step, sources);
  const runs = op
    ? `<a href="${escapeHtml(operationLink(op, sources))}"><code>${escapeHtml(`${op.method} ${op.path}`)}</code></a> (<code>${escapeHtml(op.operationId)}</code>)${op.source === 'mockControl' ? ' <span class="badge">mock only</span>' : ''}`
    : `the workflow <a href="${workflowPageFile(step.workflowId)}"><code>${escapeHtml(step.workflowId)}</code></a>`;
  const machines = machinesOf(workflow, step, sources)
    .map((name) => `<a href="state-machines.html#state-${slug(name)}">${escapeHtml(sources.machines[name].title)}</a>`)
    .join(', ');
  const sent = sends(step, steps);
  const sentHtml = sent.length
    ? `<table class="workflow-sends"><thead><tr><th>Sends</th><th>Name</th><th>Value</th></tr></thead><tbody>${sent.map(([where, name, [html]]) => `<tr><td>${escapeHtml(where)}</td><td><code>${escapeHtml(name)}</code></td><td>${html}</td></tr>`).join('')}</tbody></table>`
    : '';
  const criteria = (step.successCriteria ?? []).map((c) => `<li><code>${escapeHtml(criterionText(c))}</code></li>`).join('');
  const outputs = Object.entries(step.outputs ?? {}).map(([name, origin]) => `<li><code>${escapeHtml(name)}</code>: ${escapeHtml(originWords(step, origin, steps))}</li>`).join('');
  const actions = actionsText(step).map((a) => `<li>${escapeHtml(a)}</li>`).join('');
  return `<li class="workflow-step" id="step-${escapeHtml(step.stepId)}">
<h3><span class="workflow-step-number">${index + 1}.</span> <code>${escapeHtml(step.stepId)}</code></h3>
<p>${markdownInline(step.description ?? '')}</p>
<p class="workflow-runs">Runs ${runs}${machines ? ` · state diagram: ${machines}` : ''}</p>
${sentHtml}
${criteria ? `<p>Passes when:</p><ul class="workflow-criteria">${criteria}</ul>` : ''}
${outputs ? `<p>Keeps, for later steps:</p><ul class="workflow-outputs">${outputs}</ul>` : ''}
${actions ? `<ul class="workflow-actions">${actions}</ul>` : ''}
</li>`;
}

const LEVELS = {
  contract: 'reads only: the conformance suite replays it against a deployment at every level',
  writes: 'sends test traffic: the conformance suite replays it against a deployment at level writes (within --max-sends)',
  never: 'never replayed against a deployment',
};

/** The JSON a page's "Run this workflow" reads: the workflow, the workflows it runs, and the operations their steps use. */
function runData(workflow, sources) {
  const reached = workflowsReached(arazzo, workflow.workflowId);
  const reachedWorkflows = reached.map(workflowById);
  const used = reachedWorkflows.flatMap((w) => (w.steps ?? []).map(stepOperation).filter(Boolean));
  const document = { arazzo: arazzo.arazzo, info: arazzo.info, sourceDescriptions: arazzo.sourceDescriptions, workflows: reachedWorkflows, components: arazzo.components };
  return { workflowId: workflow.workflowId, arazzo: document, operations: operationsUsed(sources.table, used) };
}

/** One workflow's page: `{ file, title, body, toc }`. */
export function workflowPage(workflowId, context) {
  const sources = sourcesOf(context);
  const workflow = workflowById(workflowId);
  const steps = workflow.steps ?? [];
  const level = workflow['x-conformance']?.level ?? 'never';
  const inputs = Object.entries(workflow.inputs?.properties ?? {})
    .map(([name, schema]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>${schema.default !== undefined ? `<code>${escapeHtml(JSON.stringify(schema.default))}</code>` : name === 'apiKey' ? 'a new key of the in-page mock' : ''}</td><td>${markdownInline(schema.description ?? '')}</td></tr>`)
    .join('');
  const flowRows = flows(workflow)
    .map((f) => `<tr><td><code>${escapeHtml(f.name)}</code></td><td>${escapeHtml(`step ${f.step}: ${f.origin}`)}</td><td>${f.usedBy.map((s) => `<a href="#step-${escapeHtml(s)}">${escapeHtml(s)}</a>`).join(', ') || 'the workflow\'s outputs'}</td></tr>`)
    .join('');
  const mockOnly = steps.filter((s) => stepOperation(s)?.source === 'mockControl').length;
  const resets = steps.some((s) => stepOperation(s)?.operationId === 'mockReset') || workflowsReached(arazzo, workflowId).slice(1).some((id) => workflowById(id).steps.some((s) => stepOperation(s)?.operationId === 'mockReset'));
  const data = JSON.stringify(runData(workflow, sources)).replaceAll('<', '\\u003c');
  const body = `<h1>${escapeHtml(workflow.summary ?? workflowId)}</h1>
<p class="muted">Workflow <code>${escapeHtml(workflowId)}</code> of <a href="workflows.html">the contract's workflows</a> (Arazzo ${escapeHtml(arazzo.arazzo)}, <code>generated/workflows.arazzo.yaml</code>) · ${steps.length} steps${mockOnly ? `, ${mockOnly} of them on the mock only` : ''} · <code>x-conformance: ${escapeHtml(level)}</code>: ${escapeHtml(LEVELS[level] ?? level)}${workflow['x-conformance']?.reason ? `. ${escapeHtml(workflow['x-conformance'].reason)}` : ''}</p>
${markdownBlock(workflow.description ?? '')}
${workflow['x-inferred'] ? `<p class="inferred-note"><span class="badge inferred">inferred</span> ${markdownInline(workflow['x-inferred-reason'] ?? '')}</p>` : ''}
<h2 id="run">Run this workflow</h2>
<p>Plays the workflow step by step, with this package's Arazzo runner, against the stateful mock running in this page (nothing leaves it), showing each request and answer. The key is a new one of the in-page mock${resets ? '; a <code>mockReset</code> step starts the in-page mock over, so what you created in the consoles is gone afterwards' : ''}. While it runs, the in-page mock's clock moves with real time, as the mock of <code>npm start</code> does.</p>
<div class="workflow-run" data-run-workflow="${escapeHtml(workflowId)}"><p class="muted">Run this workflow (needs JavaScript)</p></div>
<script type="application/json" id="workflow-run-data">${data}</script>
${inputs ? `<h2 id="inputs">Inputs</h2><table class="workflow-inputs"><thead><tr><th>Input</th><th>In this page</th><th>What it is</th></tr></thead><tbody>${inputs}</tbody></table>` : ''}
<h2 id="flows">What flows between the steps</h2>
${flowRows ? `<table class="workflow-flows"><thead><tr><th>Value</th><th>Kept by</th><th>Used by</th></tr></thead><tbody>${flowRows}</tbody></table>` : '<p>Each step stands alone: no value is carried from one to the next.</p>'}
<h2 id="steps">Steps</h2>
<ol class="workflow-steps">
${steps.map((step, i) => stepHtml(workflow, step, i, sources)).join('\n')}
</ol>`;
  return { file: workflowPageFile(workflowId), title: `Workflow: ${workflowId}`, body, toc: [{ id: 'run', text: 'Run this workflow' }, ...(inputs ? [{ id: 'inputs', text: 'Inputs' }] : []), { id: 'flows', text: 'What flows between the steps' }, { id: 'steps', text: 'Steps' }] };
}

/** The index of the workflows: `{ file, title, body, toc }`. */
export function workflowsIndexPage() {
  const rows = workflows
    .map((w) => {
      const level = w['x-conformance']?.level ?? 'never';
      return `<tr><td><a href="${workflowPageFile(w.workflowId)}"><code>${escapeHtml(w.workflowId)}</code></a></td><td>${markdownInline(w.summary ?? '')}</td><td>${(w.steps ?? []).length}</td><td><code>${escapeHtml(level)}</code></td></tr>`;
    })
    .join('');
  const body = `<h1>Workflows</h1>
<p>The multi-step jobs of the interface specification (parts 3, 4, 6 and 7) as <a href="https://spec.openapis.org/arazzo/v1.0.1.html">Arazzo ${escapeHtml(arazzo.arazzo)}</a> workflows over the operations of the contract: <code>generated/workflows.arazzo.yaml</code>, bundled from <code>spec/workflows/</code>. Each page shows the steps in order, what flows from one to the next, and a button that plays the workflow against the mock running in the page. Redocly Respect runs them against a mock or a deployment; <code>numbers-api conformance --workflows</code> replays those whose level allows it.</p>
<table class="workflows"><thead><tr><th>Workflow</th><th>What it does</th><th>Steps</th><th>On a deployment (<code>x-conformance</code>)</th></tr></thead><tbody>${rows}</tbody></table>
<h2 id="levels">Levels</h2>
<ul>${Object.entries(LEVELS).map(([level, text]) => `<li><code>${level}</code>: ${escapeHtml(text)}.</li>`).join('')}</ul>`;
  return { file: 'workflows.html', title: 'Workflows', body, toc: [{ id: 'levels', text: 'Levels' }] };
}

/** A guide's `workflow <id>` region, as HTML for the site: the steps and what flows, linked to the workflow's page. */
export function workflowRegionHtml(workflowId, context) {
  const sources = sourcesOf(context);
  const workflow = workflowById(workflowId);
  const rows = (workflow.steps ?? [])
    .map((step, i) => {
      const op = operationOf(step, sources);
      const runs = op ? `<a href="${escapeHtml(operationLink(op, sources))}"><code>${escapeHtml(`${op.method} ${op.path}`)}</code></a>${op.source === 'mockControl' ? ' (mock only)' : ''}` : `workflow <a href="${workflowPageFile(step.workflowId)}"><code>${escapeHtml(step.workflowId)}</code></a>`;
      const sent = sends(step, workflow.steps).filter(([, name]) => name !== 'Authorization').map(([, name, [html]]) => `<code>${escapeHtml(name)}</code>: ${html}`).join('<br>');
      return `<tr><td>${i + 1}</td><td><a href="${workflowPageFile(workflowId)}#step-${escapeHtml(step.stepId)}"><code>${escapeHtml(step.stepId)}</code></a></td><td>${runs}</td><td>${sent}</td></tr>`;
    })
    .join('');
  return `<p class="workflow-link">The workflow <a href="${workflowPageFile(workflowId)}"><code>${escapeHtml(workflowId)}</code></a> (${markdownInline(workflow.summary ?? '')}): its page shows every step and runs it against the mock in the page.</p>
<table class="workflow-region"><thead><tr><th>#</th><th>Step</th><th>Runs</th><th>Sends (besides the key)</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The same region as Markdown, for the committed guide sources. */
export function workflowRegionMarkdown(workflowId, context) {
  const sources = sourcesOf(context);
  const workflow = workflowById(workflowId);
  const cell = (text) => String(text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
  const rows = (workflow.steps ?? []).map((step, i) => {
    const op = operationOf(step, sources);
    const runs = op ? `\`${op.method} ${op.path}\`${op.source === 'mockControl' ? ' (mock only)' : ''}` : `workflow \`${step.workflowId}\``;
    const sent = sends(step, workflow.steps).filter(([, name]) => name !== 'Authorization').map(([, name, [, md]]) => `\`${name}\`: ${md}`).join('; ');
    return `| ${i + 1} | \`${step.stepId}\` | ${cell(runs)} | ${cell(sent)} |`;
  });
  return [
    `The workflow \`${workflowId}\` of \`generated/workflows.arazzo.yaml\` (${workflow.summary ?? ''}); on the docs site its page (\`${workflowPageFile(workflowId)}\`) runs it against the mock in the page.`,
    '',
    '| # | Step | Runs | Sends (besides the key) |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
