// What a frontend did on the mock, kept per account (key) as it happens (issue 31): one recorder
// at the pipeline's seam (src/serve/pipeline.ts calls `observe` once per answered request),
// so every door (node:http, MSW, the docs' in-page mock) records the same way. It keeps the
// requests in order with the answers they got, bounded per account (steps and bytes), and turns
// them into Arazzo only when asked (to-arazzo.ts). The key is held in memory to tell accounts
// apart and is never part of what it gives out. Browser-safe.
import { stringLeaves } from '../contract/json-pointer.js';
import type { SimRequest, SimResponse } from '../simulator/types.js';

/** One request as the recording keeps it, and its answer's status and text. */
export interface RecordedExchange {
  source: 'numbersApi' | 'mockControl';
  operationId: string;
  method: string;
  /** Decoded path parameters by name. */
  params: Record<string, string>;
  query: Array<[string, string]>;
  /** The header parameters the contract declares that the request carried (lower-case names); never Authorization. */
  headers: Record<string, string>;
  /** The JSON body, or the text parts of a multipart body. */
  body?: unknown;
  contentType?: string;
  /** The key the request carried (held in memory only: to-arazzo.ts turns it into an input). */
  key?: string;
  status: number;
  /** The answer's body as sent. */
  responseText?: string;
}

export interface Recording {
  /** The recording's name, its file name and its workflowId. */
  name: string;
  exchanges: RecordedExchange[];
  /** Whether steps were left out past the bounds (and how many). */
  leftOut: number;
  bytes: number;
}

export interface RecorderOptions {
  /** Record every key the mock sees (`--record <dir>`), else only the keys switched on (`/__mock/recording`). */
  all?: boolean;
  /** Requests kept per account at most (default 1,000); past it the recording says how many were left out. */
  maxSteps?: number;
  /** Bytes of bodies kept per account at most (default 8 MB). */
  maxBytes?: number;
  /** The header parameter names (lower case) any operation declares, kept when a request carries them. */
  headerNames?: ReadonlySet<string>;
}

/** One answered request, as the pipeline tells it (src/serve/pipeline.ts). */
export interface Observed extends Pick<RecordedExchange, 'source' | 'operationId' | 'params'> {
  request: SimRequest;
  response: SimResponse;
  /** The key of `Authorization` where the request carried one that was accepted. */
  key?: string;
}

/** The control operations that are the recorder's own switch, and the reads that change nothing: never recorded. */
const NOT_RECORDED = new Set(['mockAbout', 'mockGetClock', 'mockGetDescription', 'mockReset', 'mockStartRecording', 'mockGetRecording', 'mockStopRecording']);
/** Requests without a key are kept under this recording (sign-up), with `--record`, until a sign-up they belong to gives its key (joinSignUp). */
export const NO_KEY = 'no-key';
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const DEFAULT_MAX_STEPS = 1000;
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/** Accounts recorded at most; keys past it are not recorded. */
export const MAX_RECORDINGS = 1000;

/** Whether a name can be a recording's (its file name and workflowId). */
export function isRecordingName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name);
}

/** The JSON value a recorded body holds, or undefined (none, or not JSON). */
export function parseJsonText(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every string of a JSON value (the values a request sent, or an answer showed). */
const strings = (value: unknown): string[] => stringLeaves(value).map((leaf) => leaf.value);

export class Recorder {
  private readonly byKey = new Map<string, Recording>();
  private readonly listeners = new Set<() => void>();
  private readonly maxSteps: number;
  private readonly maxBytes: number;
  private counter = 0;

  constructor(private readonly options: RecorderOptions = {}) {
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /** Starts (or renames) the recording of `key`'s account; false when no more recordings may be kept. */
  start(key: string, name?: string): boolean {
    const existing = this.byKey.get(key);
    if (existing) {
      if (name) existing.name = name;
      return true;
    }
    if (this.byKey.size >= MAX_RECORDINGS) return false;
    this.counter += 1;
    this.byKey.set(key, { name: name ?? `recording-${this.counter}`, exchanges: [], leftOut: 0, bytes: 0 });
    return true;
  }

  /** Ends the recording of `key`'s account and gives it back. */
  stop(key: string): Recording | undefined {
    const recording = this.byKey.get(key);
    this.byKey.delete(key);
    return recording;
  }

  recording(key: string): Recording | undefined {
    return this.byKey.get(key);
  }

  /** Every recording kept, in the order they began. */
  recordings(): Recording[] {
    return [...this.byKey.values()];
  }

  /** Called after each change (the HTTP door writes the files). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One answered request, at the pipeline's seam. */
  observe({ request, response, source, operationId, params, key }: Observed): void {
    if (NOT_RECORDED.has(operationId) || response.hold) return;
    // A move of the clock is everyone's: each recording open gets it (a mock-only step).
    if (source === 'mockControl' && key === undefined) {
      if (response.status >= 300 || this.byKey.size === 0) return;
      const recorded = this.exchange(request, response, source, operationId, params, undefined);
      for (const recording of this.byKey.values()) this.append(recording, recorded);
      this.changed();
      return;
    }
    const bucket = key ?? NO_KEY;
    if (!this.byKey.has(bucket)) {
      if (!this.options.all) return;
      if (!this.start(bucket, key === undefined ? NO_KEY : undefined)) return;
    }
    const recording = this.byKey.get(bucket)!;
    // A full recording counts what it leaves out, and copies nothing of it (a sign-up's step is still read for its key).
    if (key !== undefined && recording.exchanges.length >= this.maxSteps) {
      recording.leftOut += 1;
      return this.changed();
    }
    const recorded = this.exchange(request, response, source, operationId, params, key);
    this.append(recording, recorded);
    if (key === undefined) this.joinSignUp(recorded[0]);
    this.changed();
  }

  /**
   * Sign-up (part 3) is keyless until verify or verify-number answers with the account's key:
   * the requests of that sign-up (the chain of values each sent back from an earlier answer)
   * leave `no-key` and open the key's recording, so the steps after them carry the key from
   * that answer (to-arazzo.ts) and the recorded sign-up replays whole.
   */
  private joinSignUp(last: RecordedExchange): void {
    const apiKey = (parseJsonText(last.responseText) as { apiKey?: unknown } | undefined)?.apiKey;
    const noKey = this.byKey.get(NO_KEY);
    if (last.status >= 300 || typeof apiKey !== 'string' || !noKey || this.byKey.has(apiKey)) return;
    // Linked by the values the mock issued: a request joins when its answer issued a value the
    // chain sent, or when it sent such a value too (register-number, beside verify-number). A
    // value the visitor typed (an email, the code) links nothing.
    const keyless = noKey.exchanges.filter((exchange) => exchange.source === 'numbersApi');
    const shown = new Map(keyless.map((exchange) => [exchange, new Set(strings(parseJsonText(exchange.responseText)))]));
    const issued = new Set([...shown.values()].flatMap((values) => [...values]));
    const wanted = new Set(strings(last.body).filter((value) => issued.has(value)));
    const chain = new Set([last]);
    for (let i = keyless.length - 1; i >= 0; i--) {
      const exchange = keyless[i]!;
      if (chain.has(exchange)) continue;
      const sent = strings(exchange.body).filter((value) => issued.has(value));
      if (![...wanted].some((value) => shown.get(exchange)!.has(value)) && !sent.some((value) => wanted.has(value))) continue;
      chain.add(exchange);
      for (const value of sent) wanted.add(value);
    }
    const joined = noKey.exchanges.filter((exchange) => chain.has(exchange));
    noKey.exchanges = noKey.exchanges.filter((exchange) => !chain.has(exchange));
    // Left with clock moves only (everyone's), `no-key` has nothing of its own.
    if (noKey.leftOut === 0 && !noKey.exchanges.some((exchange) => exchange.source === 'numbersApi')) this.byKey.delete(NO_KEY);
    this.counter += 1;
    const bytes = joined.reduce((sum, e) => sum + (e.responseText?.length ?? 0) + (e.body === undefined ? 0 : JSON.stringify(e.body).length), 0);
    noKey.bytes -= bytes;
    this.byKey.set(apiKey, { name: `recording-${this.counter}`, exchanges: joined, leftOut: 0, bytes });
  }

  private append(recording: Recording, [exchange, size]: [RecordedExchange, number]): void {
    if (recording.exchanges.length >= this.maxSteps || recording.bytes + size > this.maxBytes) {
      recording.leftOut += 1;
      return;
    }
    recording.bytes += size;
    recording.exchanges.push(exchange);
  }

  /** The request as recorded, and the bytes it keeps (its body's and its answer's text). */
  private exchange(request: SimRequest, response: SimResponse, source: RecordedExchange['source'], operationId: string, params: Record<string, string>, key: string | undefined): [RecordedExchange, number] {
    const headers: Record<string, string> = {};
    for (const name of this.options.headerNames ?? []) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const form = request.form
      ? Object.fromEntries(Object.entries(request.form).filter(([, part]) => typeof part.value === 'string').map(([name, part]) => [name, part.value]))
      : undefined;
    // A copy of the body (the simulator may keep and change what it was given), made through its JSON text, which gives its size too.
    const bodyText = form ? JSON.stringify(form) : request.body === undefined ? undefined : JSON.stringify(request.body);
    const text = response.text ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
    const exchange: RecordedExchange = { source, operationId, method: request.method.toUpperCase(), params: { ...params }, query: [...request.query.entries()], headers, status: response.status };
    if (bodyText !== undefined) {
      exchange.body = form ?? (JSON.parse(bodyText) as unknown);
      exchange.contentType = form ? 'multipart/form-data' : 'application/json';
    }
    if (key !== undefined) exchange.key = key;
    if (text !== undefined) exchange.responseText = text;
    return [exchange, (text?.length ?? 0) + (bodyText?.length ?? 0)];
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
