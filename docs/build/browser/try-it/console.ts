// One try-it console: the form of one operation, started from its named examples
// (starting-example.ts), sent to the chosen target, the answer, and the request the form
// describes in every sample language (code-block.ts).
import type { CatalogOperation, CatalogTestValue } from './catalog.js';
import { inPageMock, type InPageMock } from './in-page-mock.js';
import { recordControl } from './record.js';
import { ID, session, type TargetKind } from './session.js';
import { startingExample } from './starting-example.js';
import { codeBlock } from './code-block.js';
import { requestUrl, type SentRequest } from './snippets.js';

type Attrs = Record<string, string | boolean | undefined>;

/** A DOM element: `h('button', { class: 'x' }, 'Send')`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Array<Node | string | null | undefined>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined) el.append(child);
  return el;
}

const TARGETS: Array<{ kind: TargetKind; label: string }> = [
  { kind: 'page', label: 'Mock in this page' },
  { kind: 'local', label: 'Local mock (npm start)' },
  { kind: 'remote', label: 'A deployment' },
];

const CLOCK_STEPS: Array<[number, string]> = [
  [10, '10 s'],
  [60, '1 min'],
  [3600, '1 h'],
  [21600, '6 h'],
  [86400, '1 day'],
];

/** Replaces, deep in a value, each example id (`pn_8f3kq2m9x7`) by the newest id of its prefix this session's answers gave. */
function fillIds(value: unknown, known: Record<string, { id: string; from: string }>, at: string, filled: string[]): unknown {
  if (typeof value === 'string') {
    const match = ID.exec(value);
    const seen = match ? known[match[1]!] : undefined;
    if (seen && seen.id !== value) {
      filled.push(`${at} ← ${seen.id} (from ${seen.from})`);
      return seen.id;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => fillIds(v, known, `${at}[${i}]`, filled));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillIds(v, known, at ? `${at}.${k}` : k, filled)]));
  return value;
}

/** The first id of each prefix in an answer (a list answers newest first), for later forms. */
function idsIn(value: unknown, found: Record<string, string> = {}): Record<string, string> {
  if (typeof value === 'string') {
    const match = ID.exec(value);
    if (match && !(match[1]! in found)) found[match[1]!] = value;
  } else if (Array.isArray(value)) value.forEach((v) => idsIn(v, found));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => idsIn(v, found));
  return found;
}

/** Sets `value` at a test value's field (`body.brand.phone`) of a JSON body. */
function setPath(body: Record<string, unknown>, path: string[], value: unknown): void {
  let node = body;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = value;
}

/** A value typed like the example it replaces (a number stays a number). */
function typed(text: string, example: unknown): unknown {
  if (typeof example === 'number' && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  if (typeof example === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

export function tryItConsole(op: CatalogOperation): HTMLElement {
  const root = h('section', { class: 'try-it', 'data-operation': op.id, 'aria-label': `Try it: ${op.summary}` });
  let fillFromSession = true;
  let controller: AbortController | undefined;

  const knownIds = (): Record<string, { id: string; from: string }> => session.data.ids[session.scope(!op.public)] ?? {};
  // The example follows what the reader has (starting-example.ts) until they pick one.
  let exampleName = startingExample(op.body?.examples ?? [], knownIds());
  let examplePicked = false;

  // --- Target, key and the mock's controls (shared by every console of the tab) -------------
  const bar = h('div', { class: 'try-it-session' });
  const renderBar = (): void => {
    const { target, urls } = session.data;
    const radios = TARGETS.map(({ kind, label }) => {
      const input = h('input', { type: 'radio', name: `target-${op.id}-${Math.random().toString(36).slice(2)}`, value: kind, checked: target === kind, 'data-target': kind });
      input.addEventListener('change', () => session.update((d) => (d.target = kind)));
      return h('label', {}, input, ` ${label}`);
    });
    const url = h('input', {
      type: 'url',
      class: 'try-it-url',
      'aria-label': 'Base URL',
      placeholder: target === 'remote' ? 'https://your-deployment.example' : '',
      value: target === 'page' ? session.baseUrl() : urls[target],
      disabled: target === 'page',
    });
    url.addEventListener('change', () => session.update((d) => (target === 'remote' ? (d.urls.remote = url.value.trim()) : (d.urls.local = url.value.trim()))));
    const key = h('input', {
      type: 'text',
      class: 'try-it-key',
      'aria-label': 'API key',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'sk_live_…',
      value: session.key(),
    });
    key.addEventListener('change', () => session.update((d) => (d.keys[d.target] = key.value.trim())));
    const controls: Node[] = [];
    if (target !== 'remote') {
      const reset = h('button', { type: 'button', class: 'try-it-reset' }, 'Reset mock');
      reset.addEventListener('click', () => void mockControl('reset'));
      const step = h('select', { class: 'try-it-clock-step', 'aria-label': 'Clock step' }, ...CLOCK_STEPS.map(([s, label]) => h('option', { value: String(s) }, label)));
      const advance = h('button', { type: 'button', class: 'try-it-advance' }, 'Advance clock');
      advance.addEventListener('click', () => void mockControl('advance', Number(step.value)));
      controls.push(h('span', { class: 'try-it-mock-controls' }, reset, ' ', advance, ' by ', step, ' ', h('span', { class: 'try-it-clock muted' }, clockText)));
    }
    if (target === 'page') controls.push(recordControl());
    bar.replaceChildren(
      h('div', { class: 'try-it-targets', role: 'radiogroup', 'aria-label': 'Send to' }, ...radios),
      h('div', { class: 'try-it-row' }, h('label', {}, 'Base URL ', url), h('label', {}, op.public ? 'Key (not needed here) ' : 'Key ', key)),
      ...controls,
    );
  };

  let clockText = '';
  async function mockControl(action: 'reset' | 'advance', seconds = 0): Promise<void> {
    try {
      if (session.data.target === 'page') {
        const mock = await inPageMock();
        if (action === 'reset') {
          mock.reset();
          session.reset();
          clockText = `reset · clock ${mock.now()}`;
        } else clockText = `clock ${mock.advance(seconds).now}`;
      } else {
        const response = await fetch(`${session.baseUrl()}/__mock/${action === 'reset' ? 'reset' : 'clock/advance'}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: action === 'reset' ? undefined : JSON.stringify({ seconds }),
        });
        const body = (await response.json().catch(() => ({}))) as { now?: string; error?: unknown };
        if (!response.ok) throw new Error(`${response.status} ${JSON.stringify(body.error ?? body)}`);
        if (action === 'reset') session.reset();
        clockText = action === 'reset' ? 'reset' : `clock ${body.now}`;
      }
    } catch (error) {
      clockText = `the mock's control surface did not answer: ${(error as Error).message}`;
    }
    session.update(() => {});
  }

  // --- The request ----------------------------------------------------------------------------
  const form = h('form', { class: 'try-it-form' });
  const paramInputs = new Map<string, HTMLInputElement>();
  const bodyArea = h('textarea', { class: 'try-it-body', rows: '8', spellcheck: 'false', 'aria-label': 'Request body (JSON)' });
  const filledNote = h('p', { class: 'try-it-filled muted' });
  const answerSelect = h(
    'select',
    { class: 'try-it-answer-select', 'aria-label': 'Documented answer' },
    h('option', { value: '' }, 'Decided by the mock (stateful)'),
    ...op.answers.map((a) => h('option', { value: `${a.status} ${a.name}` }, `${a.status} ${a.name}${a.summary ? `: ${a.summary}` : ''}`)),
  );

  /** Fills the form from the chosen named example (ids from this session's answers where they apply). */
  function fill(): void {
    const filled: string[] = [];
    const known = fillFromSession ? knownIds() : {};
    for (const param of op.params) {
      const input = paramInputs.get(`${param.in}:${param.name}`);
      if (!input) continue;
      // A required parameter starts at its example; an optional one empty, its example as a hint
      // (a filter sent by default would hide what the reader just created).
      if (param.required) input.value = param.example === undefined ? '' : String(fillIds(param.example, known, param.name, filled));
      else {
        input.value = '';
        input.placeholder = param.example === undefined ? '' : `e.g. ${String(param.example)}`;
      }
    }
    const example = op.body?.examples.find((e) => e.name === exampleName);
    if (op.body) bodyArea.value = example ? JSON.stringify(fillIds(example.value, known, '', filled), null, 2) : '';
    filledNote.textContent = filled.length ? `Filled from this session's answers: ${filled.join('; ')}.` : '';
    refreshCode();
  }

  const rows: Node[] = [];
  let exampleSelect: HTMLSelectElement | undefined;
  if (op.body?.examples.length) {
    const select = (exampleSelect = h('select', { class: 'try-it-example', 'aria-label': 'Named example' }, ...op.body.examples.map((e) => h('option', { value: e.name }, `${e.name}${e.summary ? `: ${e.summary}` : ''}`))));
    select.value = exampleName;
    select.addEventListener('change', () => {
      examplePicked = true;
      exampleName = select.value;
      fill();
    });
    rows.push(h('label', { class: 'try-it-row' }, 'Example ', select));
  }
  rows.push(h('label', { class: 'try-it-row' }, 'Answer ', answerSelect));
  for (const param of op.params) {
    const input = h('input', { type: 'text', 'data-param': `${param.in}:${param.name}`, 'aria-label': `${param.in} parameter ${param.name}`, spellcheck: 'false' });
    paramInputs.set(`${param.in}:${param.name}`, input);
    rows.push(h('label', { class: 'try-it-row' }, h('code', {}, param.name), ` (${param.in}${param.required ? ', required' : ''}) `, input));
  }
  if (op.body) rows.push(h('label', { class: 'try-it-row try-it-body-row' }, `Body (${op.body.mediaType})`, bodyArea));
  if (op.testValues.length) {
    const chips = op.testValues.map((tv) => testValueChip(tv));
    rows.push(h('div', { class: 'try-it-test-values' }, h('span', { class: 'muted' }, 'Test values of the mock: '), ...chips));
  }
  const fillToggle = h('input', { type: 'checkbox', checked: true });
  fillToggle.addEventListener('change', () => {
    fillFromSession = fillToggle.checked;
    fill();
  });
  rows.push(h('label', { class: 'try-it-row muted' }, fillToggle, " Fill ids from this session's answers"), filledNote);

  function testValueChip(tv: CatalogTestValue): HTMLElement {
    const chip = h('button', { type: 'button', class: 'try-it-chip', title: tv.description, 'data-test-value': tv.name }, `${tv.field.replace(/^(body|query)\./, '')} = ${tv.value}`, tv.status ? ` → ${tv.status}` : '');
    chip.addEventListener('click', () => {
      const [where, ...path] = tv.field.split('.');
      if (where === 'body') {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(bodyArea.value || '{}') as Record<string, unknown>;
        } catch {
          // Start from an empty body.
        }
        setPath(body, path, tv.value);
        bodyArea.value = JSON.stringify(body, null, 2);
      } else {
        const input = paramInputs.get(`${where}:${path.join('.')}`);
        if (input) input.value = tv.value;
      }
    });
    return chip;
  }

  const send = h('button', { type: 'submit', class: 'try-it-send' }, 'Send');
  const cancel = h('button', { type: 'button', class: 'try-it-cancel', hidden: true }, 'Cancel');
  cancel.addEventListener('click', () => controller?.abort());
  form.append(...rows, h('div', { class: 'try-it-actions' }, send, ' ', cancel));

  // --- The answer, and the request in code ---------------------------------------------------
  const answer = h('div', { class: 'try-it-answer', 'aria-live': 'polite' });
  const code = codeBlock();
  let codeQueued = false;
  function refreshCode(): void {
    if (codeQueued) return;
    codeQueued = true;
    queueMicrotask(() => {
      codeQueued = false;
      code.show(formRequest());
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void sendRequest();
  });

  /** The request the form describes now: what Send sends, and what the code below it shows. */
  function formRequest(): SentRequest {
    const sent: SentRequest = { op, baseUrl: session.baseUrl(), path: {}, query: {}, header: {}, prefer: null, withKey: !op.public, body: undefined };
    for (const param of op.params) {
      const value = paramInputs.get(`${param.in}:${param.name}`)!.value;
      if (value === '' && !param.required) continue;
      sent[param.in][param.name] = typed(value, param.example);
    }
    if (op.body && bodyArea.value.trim() !== '') {
      try {
        sent.body = JSON.parse(bodyArea.value);
      } catch {
        sent.rawBody = bodyArea.value; // sent as typed: the mock answers 400 for malformed JSON
      }
    }
    const [status, name] = answerSelect.value.split(' ');
    if (name) sent.prefer = Number(status) < 300 ? `example=${name}` : `code=${status}, example=${name}`;
    return sent;
  }

  async function sendRequest(): Promise<void> {
    const sent = formRequest();
    const rawBody = sent.rawBody ?? (sent.body === undefined ? undefined : bodyArea.value);
    if (!sent.baseUrl) {
      answer.replaceChildren(h('p', { class: 'try-it-error' }, 'Give the base URL of the deployment first.'));
      return;
    }

    const headers = new Headers();
    if (sent.withKey && session.key()) headers.set('Authorization', `Bearer ${session.key()}`);
    for (const [k, v] of Object.entries(sent.header)) headers.set(k, String(v));
    if (sent.prefer) headers.set('Prefer', sent.prefer);
    if (rawBody !== undefined) headers.set('Content-Type', 'application/json');
    controller = new AbortController();
    const request = new Request(requestUrl(sent), { method: op.method, headers, body: rawBody, signal: controller.signal });

    send.disabled = true;
    cancel.hidden = false;
    const waiting = (): HTMLElement => h('p', { class: 'muted try-it-pending' }, 'Waiting for an event… (on the mock in this page, move its clock to make something happen)');
    const longPoll = op.id === 'waitForEvent';
    answer.replaceChildren(longPoll && session.data.target !== 'page' ? waiting() : h('p', { class: 'muted try-it-sending' }, 'Sending…'));
    const started = performance.now();
    const targetKind = session.data.target;
    try {
      const mock = targetKind === 'page' ? await inPageMock() : undefined;
      const answered = mock ? mock.send(request) : fetch(request);
      // The wait says it waits once the in-page mock holds it: a clock moved before that would set
      // off events the wait, which sees only what happens after it began, never receives.
      if (longPoll && mock) void announceWhenHeld(mock, answered, waiting);
      const response = await answered;
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : '';
      } catch {
        // Not JSON: shown as text.
      }
      showAnswer(sent, response, body, Math.round(performance.now() - started), mock?.serviceWorker);
    } catch (error) {
      const aborted = (error as Error).name === 'AbortError';
      answer.replaceChildren(
        h('p', { class: 'try-it-error' }, aborted ? 'Cancelled.' : `No answer: ${(error as Error).message}. ${targetKind === 'page' ? '' : 'Is the server running, and does it allow this page (CORS)?'}`),
      );
    } finally {
      send.disabled = false;
      cancel.hidden = true;
      controller = undefined;
    }
  }

  async function announceWhenHeld(mock: InPageMock, answered: Promise<Response>, waiting: () => HTMLElement): Promise<void> {
    let settled = false;
    const done = (): void => void (settled = true);
    answered.then(done, done);
    const key = session.key();
    while (!settled && mock.waitsHeld(key) === 0) await new Promise((resolve) => setTimeout(resolve, 15));
    if (!settled) answer.replaceChildren(waiting());
  }

  function showAnswer(sent: SentRequest, response: Response, body: unknown, ms: number, serviceWorker: boolean | undefined): void {
    const where = session.data.target === 'page' ? (serviceWorker ? 'answered in this page by the service worker' : 'answered in this page') : `answered by ${sent.baseUrl}`;
    const headerRows = [...response.headers].map(([k, v]) => h('tr', {}, h('td', {}, h('code', {}, k)), h('td', {}, v)));
    const extras: Node[] = [];
    // Ids in the answer fill the next forms of this session; a new key is offered, never used unasked.
    const ids = idsIn(body);
    if (Object.keys(ids).length && response.ok) {
      session.update((d) => {
        const scope = (d.ids[session.scope(!op.public)] ??= {});
        for (const [prefix, id] of Object.entries(ids)) scope[prefix] = { id, from: `${op.method} ${op.path}` };
      });
    }
    const apiKey = (body as { apiKey?: unknown } | null)?.apiKey;
    if (typeof apiKey === 'string' && apiKey.startsWith('sk_live_')) {
      const use = h('button', { type: 'button', class: 'try-it-use-key' }, 'Use this key for the next requests');
      use.addEventListener('click', () => {
        session.update((d) => (d.keys[d.target] = apiKey));
        use.replaceWith(h('span', { class: 'muted' }, 'The key is in this tab’s session (never stored beyond it).'));
      });
      extras.push(h('p', {}, use));
    }
    answer.replaceChildren(
      h('p', { class: `try-it-status status-${String(response.status)[0]}xx` }, h('strong', { 'data-status': String(response.status) }, `${response.status} ${response.statusText}`), h('span', { class: 'muted' }, ` · ${ms} ms · ${where}`)),
      ...extras,
      h('details', { class: 'try-it-headers' }, h('summary', {}, `Headers (${headerRows.length})`), h('table', {}, h('tbody', {}, ...headerRows))),
      h('pre', { class: 'try-it-response-body' }, h('code', {}, typeof body === 'string' ? body : JSON.stringify(body, null, 2))),
    );
  }

  // --- Layout -----------------------------------------------------------------------------------
  const head = h(
    'div',
    { class: 'try-it-head' },
    h('strong', {}, 'Try it'),
    ' ',
    h('code', {}, `${op.method} ${op.path}`),
    ' ',
    h('span', { class: 'muted' }, op.summary),
  );
  root.append(head, bar, form, answer, code.element);
  renderBar();
  fill();
  // The code follows the form: a choice, a keystroke, new ids, another target or key.
  form.addEventListener('input', refreshCode);
  form.addEventListener('change', refreshCode);
  // New ids from an answer (or another target or key) re-fill the form; otherwise what the
  // reader typed stays.
  let lastIds = JSON.stringify(knownIds());
  let lastTarget = session.data.target;
  const unsubscribe = session.subscribe(() => {
    if (!root.isConnected && root.dataset.mounted) {
      unsubscribe();
      return;
    }
    renderBar();
    refreshCode();
    const ids = JSON.stringify(knownIds());
    if (ids !== lastIds || session.data.target !== lastTarget) {
      lastIds = ids;
      lastTarget = session.data.target;
      if (!examplePicked && exampleSelect) exampleSelect.value = exampleName = startingExample(op.body?.examples ?? [], knownIds());
      fill();
    }
  });
  return root;
}

/** Calls `listener` when the reader picks another target. */
export function onTargetChange(listener: (target: TargetKind) => void): void {
  let last = session.data.target;
  session.subscribe(() => {
    if (session.data.target !== last) {
      last = session.data.target;
      listener(last);
    }
  });
}
