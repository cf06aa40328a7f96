// The reader's try-it session: where requests go, the key for each target, and the ids earlier
// answers revealed. Kept in sessionStorage only: it lives as long as the tab, never in a URL or
// in storage that outlives the tab (localStorage, cookies, IndexedDB).
import { catalog } from './catalog.js';

export type TargetKind = 'page' | 'local' | 'remote';

export interface SessionData {
  target: TargetKind;
  urls: { local: string; remote: string };
  keys: Record<TargetKind, string>;
  /** Ids seen in answers, by scope (target, address, key) and then by id prefix (`pn`, `msg` ...). */
  ids: Record<string, Record<string, { id: string; from: string }>>;
  drawer: boolean;
  /** The language the consoles show their code in (a key of snippets.ts's SAMPLE_LANGUAGES). */
  language: string;
}

const STORE = 'numbers-api-docs:try-it';

const randomKey = (): string => `sk_live_docs_${Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

function fresh(): SessionData {
  return {
    target: 'page',
    urls: { local: catalog.mockUrl, remote: '' },
    keys: { page: randomKey(), local: randomKey(), remote: '' },
    ids: {},
    drawer: false,
    language: 'typescript',
  };
}

function load(): SessionData {
  try {
    const raw = sessionStorage.getItem(STORE);
    if (raw) return { ...fresh(), ...(JSON.parse(raw) as Partial<SessionData>) };
  } catch {
    // No sessionStorage (a sandboxed frame): the session lives in memory, for this page only.
  }
  return fresh();
}

type Listener = () => void;

class Session {
  data: SessionData = load();
  private listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  update(change: (data: SessionData) => void): void {
    change(this.data);
    try {
      sessionStorage.setItem(STORE, JSON.stringify(this.data));
    } catch {
      // Memory only.
    }
    for (const listener of this.listeners) listener();
  }

  /** The base URL of the current target. */
  baseUrl(): string {
    const { target, urls } = this.data;
    return (target === 'remote' ? urls.remote : target === 'local' ? urls.local : catalog.mockUrl).replace(/\/+$/, '');
  }

  key(): string {
    return this.data.keys[this.data.target];
  }

  /** Where ids learned from answers apply: this target, address and key (no key: the sign-up steps). */
  scope(withKey: boolean): string {
    return `${this.data.target} ${this.baseUrl()} ${withKey ? this.key() : '-'}`;
  }

  reset(): void {
    this.update((data) => Object.assign(data, { ...fresh(), target: data.target, urls: data.urls, keys: { ...data.keys, page: randomKey() }, drawer: data.drawer, language: data.language }));
  }
}

export const session = new Session();

/** An id in the style of the contract's examples and the mock's answers: `pn_8f3kq2m9x7`, `msg_01JD...`. */
export const ID = /^([a-z]{2,6})_([A-Za-z0-9]{6,})$/;
