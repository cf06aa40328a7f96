// The consoles' "Record" toggle (issue 31; README, "Record and replay"): while it is on, the
// in-page mock records the requests of the reader's key (its per-key switch,
// `control.startRecording`, the same recorder as `npm start -- --record`); turned off, the
// recording is offered as a file, `<name>.arazzo.json`, an Arazzo workflow that
// `numbers-api conformance --replay` and `redocly respect` run against a deployment. Values the
// mock issued and the reader sent back are runtime expressions; the key is an input, never written.
// One recording for the page (every console of the tab shows the same toggle); it lives as long
// as the page, as the recorder does.
import { inPageMock } from './in-page-mock.js';
import { session } from './session.js';

interface RecordState {
  /** The key being recorded, while the toggle is on. */
  key?: string;
  name?: string;
  /** The last recording, ready to download. */
  file?: { name: string; url: string; steps: number };
  error?: string;
}

const state: RecordState = {};
let count = 0;

/** Redraws every console's bar (they re-render on a session change). */
const redraw = (): void => session.update(() => {});

async function start(): Promise<void> {
  const mock = await inPageMock();
  count += 1;
  const name = `try-it-${count}`;
  try {
    mock.handlers.control.startRecording(session.key(), name);
    Object.assign(state, { key: session.key(), name, error: undefined });
  } catch (error) {
    state.error = (error as Error).message;
  }
  redraw();
}

async function stop(): Promise<void> {
  const mock = await inPageMock();
  const key = state.key!;
  state.key = undefined;
  try {
    const document = mock.handlers.control.stopRecording(key) as { workflows?: Array<{ steps?: unknown[] }> };
    if (state.file) URL.revokeObjectURL(state.file.url);
    const blob = new Blob([`${JSON.stringify(document, null, 2)}\n`], { type: 'application/json' });
    state.file = { name: `${state.name}.arazzo.json`, url: URL.createObjectURL(blob), steps: document.workflows?.[0]?.steps?.length ?? 0 };
  } catch (error) {
    state.error = (error as Error).message;
  }
  redraw();
}

/** The toggle and, after a recording, its download link; for the bar of a console on the mock in this page. */
export function recordControl(): HTMLElement {
  const wrap = document.createElement('span');
  wrap.className = 'try-it-record';
  const label = document.createElement('label');
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.className = 'try-it-record-toggle';
  box.checked = state.key !== undefined;
  box.addEventListener('change', () => void (box.checked ? start() : stop()));
  label.append(box, ' Record');
  wrap.append(label);
  const note = document.createElement('span');
  note.className = 'muted';
  if (state.key !== undefined) {
    note.textContent = state.key === session.key() ? ` recording ${state.name}: the requests of this key` : ` recording ${state.name}: the requests of the key it began with (another key is in use now)`;
    wrap.append(note);
  } else if (state.file) {
    const link = document.createElement('a');
    link.className = 'try-it-record-download';
    link.href = state.file.url;
    link.download = state.file.name;
    link.textContent = `Download ${state.file.name}`;
    note.textContent = ` (${state.file.steps} step${state.file.steps === 1 ? '' : 's'}; replay it with numbers-api conformance --replay)`;
    wrap.append(' ', link, note);
  }
  if (state.error) {
    const error = document.createElement('span');
    error.className = 'try-it-error';
    error.textContent = ` ${state.error}`;
    wrap.append(error);
  }
  return wrap;
}
