// A console's code: the request its form describes right now (the example selected, the ids
// filled in, what the reader typed, the documented answer asked for), in every sample language,
// one tab each. The language chosen is the session's: every console shows the same one.
import { session } from './session.js';
import { requestSamples, SAMPLE_LANGUAGES, type SentRequest } from './snippets.js';

export interface CodeBlock {
  element: HTMLElement;
  /** Shows `sent` in every language (the last call wins when several are in flight). */
  show(sent: SentRequest): void;
}

export function codeBlock(): CodeBlock {
  const element = document.createElement('div');
  element.className = 'try-it-code';
  const intro = document.createElement('p');
  intro.className = 'muted try-it-code-intro';
  const tabs = document.createElement('div');
  tabs.className = 'try-it-code-tabs';
  tabs.setAttribute('role', 'tablist');
  element.append(intro, tabs);

  const panels = new Map<string, { tab: HTMLButtonElement; pre: HTMLElement; panel: HTMLElement }>();
  for (const { key, label } of SAMPLE_LANGUAGES) {
    const tab = document.createElement('button');
    tab.type = 'button';
    tab.setAttribute('role', 'tab');
    tab.dataset.language = key;
    tab.textContent = label;
    tab.addEventListener('click', () => session.update((d) => (d.language = key)));
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'try-it-copy';
    copy.textContent = 'Copy';
    const pre = document.createElement('pre');
    copy.addEventListener('click', () => {
      void navigator.clipboard?.writeText(pre.textContent ?? '').then(() => (copy.textContent = 'Copied'), () => (copy.textContent = 'Select and copy'));
    });
    const head = document.createElement('div');
    head.className = 'try-it-snippet-head';
    head.append(Object.assign(document.createElement('span'), { textContent: label === 'TypeScript' ? 'TypeScript (numbers-api-contract/client)' : label }), copy);
    const panel = document.createElement('div');
    panel.className = `try-it-snippet try-it-${key}`;
    panel.setAttribute('role', 'tabpanel');
    panel.append(head, pre);
    tabs.append(tab);
    element.append(panel);
    panels.set(key, { tab, pre, panel });
  }

  const select = (): void => {
    const chosen = panels.has(session.data.language) ? session.data.language : SAMPLE_LANGUAGES[0]!.key;
    for (const [key, { tab, panel }] of panels) {
      tab.setAttribute('aria-selected', String(key === chosen));
      panel.hidden = key !== chosen;
    }
  };
  session.subscribe(select);
  select();

  let latest = 0;
  return {
    element,
    show(sent) {
      const call = ++latest;
      intro.textContent = `This request in code${sent.withKey ? ' (the key read from NUMBERS_API_KEY)' : ''}:`;
      requestSamples(sent).then(
        (samples) => {
          if (call !== latest) return;
          for (const [key, { pre }] of panels) pre.textContent = samples[key] ?? '';
        },
        (error: Error) => {
          if (call === latest) intro.textContent = `No code for this request: ${error.message}`;
        },
      );
    },
  };
}
