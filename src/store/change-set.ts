// What one run of the rules changed, as a short list of operations (issue 32): the unit a store
// writes instead of the whole state. The rules change plain objects in place; `trackChanges`
// hands them the state behind proxies that note where each write lands, at the grain a store can
// write cheaply:
//
// - a record of a history list (an account's messages, calls, events, billing activity): an
//   append, a trim of the oldest, or one element changed: a send adds one message, never the 500;
// - an entry of a map (an account's meta, idempotency keys, days, 10DLC registrations, module
//   state; the state's keys, emails, numbers, sign-ups; the accounts themselves);
// - any other field, whole (an account's numbers, balance, webhooks ...);
// - the planned steps (src/simulator/job-queue.ts reports each one planned or taken).
//
// `applyChanges` replays the operations on another copy of the state (a journal read back at
// start, a process catching up with what another committed). A view that holds only part of the
// state (a shared store's) is tracked the same way, with `lazy` saying which entries it holds:
// reading one it lacks throws `Missing`, and the store loads it and runs the rules again.
// Browser-safe (it is not part of the MSW bundle: only node's stores use it).
import { observeJobs } from '../simulator/job-queue.js';
import { RAW, rawOf } from '../simulator/raw.js';
import type { Job, SimState } from '../simulator/state.js';

export type Path = string[];

/** One change. Values are the state's own objects until the set is written out (`JSON.stringify`). */
export type Change =
  | ['s', Path, unknown] // set (a unit, a map entry, a scalar)
  | ['d', Path] // delete
  | ['t', Path, number] // drop the n oldest of a list
  | ['a', Path, unknown[]] // append to a list
  | ['i', Path, number, unknown] // replace a list's element
  | ['j+', Job[]] // steps planned
  | ['j-', number[]]; // steps taken or dropped (by `seq`)

type Shape = 'unit' | 'list' | 'jobs' | { dict: Shape } | { struct: Record<string, Shape>; other: Shape };

const ENTRIES: Shape = { dict: 'unit' };
/** An account (src/simulator/state.ts `AccountState`): where its writes are noted. */
const ACCOUNT: Shape = {
  struct: {
    messages: 'list',
    calls: 'list',
    events: 'list',
    meta: ENTRIES,
    idempotency: ENTRIES,
    daily: ENTRIES,
    tenDlc: ENTRIES,
    // Module state (rate-limit windows, usage by day and number, contacts ...): entry by entry,
    // four levels down (a send touches one day's cell of one number, not the whole usage).
    extra: { dict: { dict: { dict: { dict: ENTRIES } } } },
    billing: { struct: { activity: 'list', invoices: ENTRIES }, other: 'unit' },
  },
  other: 'unit',
};
/** The maps of the state that are read and written entry by entry. */
export const INDEXES = ['keys', 'revokedKeys', 'emails', 'boundNumbers', 'serviceNumbers', 'signups', 'registrations'] as const;
const ROOT: Shape = {
  struct: { accounts: { dict: ACCOUNT }, jobs: 'jobs', ...Object.fromEntries(INDEXES.map((name) => [name, ENTRIES])) },
  other: 'unit',
};

/** A view lacks `key` of `map` (an index, or `accounts`): the store loads it and runs again. */
export class Missing extends Error {
  constructor(
    readonly map: string,
    readonly key: string,
  ) {
    super(`the view does not hold ${map}[${key}]`);
  }
}

/** For a view holding part of the state: whether it holds (or knows the absence of) `key` of the root map `map`. */
export interface Lazy {
  holds(map: string, key: string): boolean;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * `value` with every tracking proxy in it replaced by its object (what is stored is plain data;
 * a run's result, so that writing its answer out reads plain objects, not traps).
 */
export function unwrapDeep(value: unknown, seen?: Set<object>): unknown {
  if (!isObject(value)) return value;
  const raw = rawOf(value);
  if (raw !== value) return raw;
  // Made for an object only: every write a rule makes passes through here, most of them a number or a string.
  seen ??= new Set<object>();
  if (seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unwrapDeep(value[i], seen);
  } else {
    for (const key of Object.keys(value)) (value as Record<string, unknown>)[key] = unwrapDeep((value as Record<string, unknown>)[key], seen);
  }
  return value;
}

const keyOf = (path: Path): string => path.join('\u0000');

/** The object that holds the last step of `path` in `root`, or undefined where the path breaks off. */
function parentOf(root: object, path: Path): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    node = (node as Record<string, unknown>)[path[i]!];
    if (!isObject(node)) return undefined;
  }
  return node as Record<string, unknown>;
}

interface ListNote {
  path: Path;
  list: unknown[];
  /** Its length at its first structural change, when it had one. */
  length?: number;
  /** The list as it was then, kept once a change reached what was there (an append leaves it as it was). */
  before?: unknown[];
  /** Elements changed in place. */
  changed: Set<object>;
}

export interface Tracker {
  /** The state the rules see. */
  view: SimState;
  /** What changed so far, in the order to apply it. */
  changes(): Change[];
  /** Whether anything changed. */
  changed(): boolean;
  /** The ids of the accounts a change touched (created, deleted, changed, or their steps). */
  touchedAccounts(): Set<string>;
}

/** A place writes are noted at: a unit (by path), or an element of a list (by identity). */
interface Mark {
  note(): void;
}

/** Notes of one run: shared by every proxy of its tracker (their handlers hold no closures of their own). */
class Notes {
  /** A Map, not a WeakMap: the notes live as long as one run and its answer, and a WeakMap's get and set cost a send a tenth of its tracking. */
  readonly proxies = new Map<object, object>();
  /** Units set or changed inside (by path), and paths replaced whole (their inner notes are moot). */
  readonly units = new Map<string, Path>();
  readonly whole = new Map<string, Path>();
  readonly lists = new Map<string, ListNote>();
  readonly planned = new Map<number, Job>();
  readonly taken = new Set<number>();
  readonly touched = new Set<string>();
  constructor(readonly lazy: Lazy | undefined) {}

  unit(path: Path): void {
    const key = keyOf(path);
    if (!this.units.has(key)) this.units.set(key, path);
    if (path[0] === 'accounts' && path[1] !== undefined) this.touched.add(path[1]);
  }
  whole_(path: Path): void {
    this.whole.set(keyOf(path), path);
    this.unit(path);
  }
  list(path: Path, target: unknown[]): ListNote {
    const key = keyOf(path);
    let found = this.lists.get(key);
    if (!found) this.lists.set(key, (found = { path, list: target, changed: new Set() }));
    if (path[0] === 'accounts' && path[1] !== undefined) this.touched.add(path[1]);
    return found;
  }
  /** The proxy of `value` for `shape` at `parent`'s `key` (made once per object and run). */
  wrap(value: unknown, shape: Shape, parent: Path, key: string): unknown {
    if (!isObject(value) || shape === 'jobs') return value;
    const known = this.proxies.get(value);
    if (known) return known;
    const path = [...parent, key];
    let handler: ProxyHandler<object>;
    if (shape === 'unit') handler = new UnitHandler(this, new UnitMark(this, path));
    else if (shape === 'list') handler = Array.isArray(value) ? new ListHandler(this, path) : new UnitHandler(this, new WholeMark(this, path));
    else if ('dict' in shape) handler = new DictHandler(this, shape.dict, path);
    else handler = new StructHandler(this, shape, path);
    return this.proxy(value, handler);
  }
  proxy(target: object, handler: ProxyHandler<object>): object {
    const proxy = new Proxy(target, handler);
    this.proxies.set(target, proxy);
    return proxy;
  }
}

class UnitMark implements Mark {
  constructor(
    readonly notes: Notes,
    readonly path: Path,
  ) {}
  note(): void {
    this.notes.unit(this.path);
  }
}
class WholeMark extends UnitMark {
  override note(): void {
    this.notes.whole_(this.path);
  }
}
class ElementMark implements Mark {
  constructor(
    readonly handler: ListHandler,
    readonly element: object,
  ) {}
  note(): void {
    this.handler.note().changed.add(this.element);
  }
}

const unchanged = (t: object, key: PropertyKey, value: unknown): boolean =>
  (t as Record<PropertyKey, unknown>)[key] === value && !isObject(value) && Object.hasOwn(t, key);

/** A unit, however deep: any write under it notes its mark. */
class UnitHandler implements ProxyHandler<object> {
  constructor(
    readonly notes: Notes,
    readonly mark: Mark,
  ) {}
  get(t: object, key: PropertyKey): unknown {
    if (key === RAW) return t; // src/simulator/raw.ts
    const value = (t as Record<PropertyKey, unknown>)[key];
    if (!isObject(value) || typeof key === 'symbol') return value;
    return this.notes.proxies.get(value) ?? this.notes.proxy(value, new UnitHandler(this.notes, this.mark));
  }
  set(t: object, key: PropertyKey, value: unknown): boolean {
    if (unchanged(t, key, value)) return true;
    (t as Record<PropertyKey, unknown>)[key] = unwrapDeep(value);
    this.mark.note();
    return true;
  }
  deleteProperty(t: object, key: PropertyKey): boolean {
    delete (t as Record<PropertyKey, unknown>)[key];
    this.mark.note();
    return true;
  }
  defineProperty(t: object, key: PropertyKey, descriptor: PropertyDescriptor): boolean {
    Object.defineProperty(t, key, 'value' in descriptor ? { ...descriptor, value: unwrapDeep(descriptor.value) } : descriptor);
    this.mark.note();
    return true;
  }
}

/** A history list: appends, trims and elements changed in place are told apart. */
class ListHandler implements ProxyHandler<object> {
  private noted: ListNote | undefined;
  target: unknown[] | undefined;
  constructor(
    readonly notes: Notes,
    readonly path: Path,
  ) {}
  note(): ListNote {
    return (this.noted ??= this.notes.list(this.path, this.target!));
  }
  get(t: object, key: PropertyKey): unknown {
    if (key === RAW) return t;
    this.target = t as unknown[];
    const value = (t as Record<PropertyKey, unknown>)[key];
    if (typeof key !== 'string' || !isObject(value) || !/^\d+$/.test(key)) return value;
    return this.notes.proxies.get(value) ?? this.notes.proxy(value, new UnitHandler(this.notes, new ElementMark(this, value)));
  }
  /** Notes a write of `key` (`value`: what it sets): past the list's first length, an append; else what was there is kept first. */
  private structural(t: object, key: PropertyKey, value?: unknown): void {
    this.target = t as unknown[];
    const found = this.note();
    const length = (found.length ??= (t as unknown[]).length);
    const appends = typeof key === 'string' && Number(key === 'length' ? value : key) >= length;
    if (!appends) found.before ??= (t as unknown[]).slice(0, length);
  }
  set(t: object, key: PropertyKey, value: unknown): boolean {
    this.structural(t, key, value);
    (t as Record<PropertyKey, unknown>)[key] = unwrapDeep(value);
    return true;
  }
  deleteProperty(t: object, key: PropertyKey): boolean {
    this.structural(t, key);
    delete (t as Record<PropertyKey, unknown>)[key];
    return true;
  }
}

/** A map: each entry is read and written on its own (the root maps of a partial view are loaded entry by entry). */
class DictHandler implements ProxyHandler<object> {
  private readonly partial: string | undefined;
  constructor(
    readonly notes: Notes,
    readonly entry: Shape,
    readonly path: Path,
  ) {
    this.partial = notes.lazy && path.length === 1 ? path[0] : undefined;
  }
  private check(key: PropertyKey): void {
    if (this.partial !== undefined && typeof key === 'string' && !this.notes.lazy!.holds(this.partial, key)) throw new Missing(this.partial, key);
  }
  get(t: object, key: PropertyKey): unknown {
    if (key === RAW) return t;
    this.check(key);
    const value = (t as Record<PropertyKey, unknown>)[key];
    return typeof key === 'string' ? this.notes.wrap(value, this.entry, this.path, key) : value;
  }
  has(t: object, key: PropertyKey): boolean {
    this.check(key);
    return key in t;
  }
  getOwnPropertyDescriptor(t: object, key: PropertyKey): PropertyDescriptor | undefined {
    this.check(key);
    return Reflect.getOwnPropertyDescriptor(t, key);
  }
  ownKeys(t: object): ArrayLike<string | symbol> {
    if (this.partial !== undefined) throw new Error(`A rule listed every entry of ${this.partial}: a view of a shared store holds only what the run touches; look entries up by key.`);
    return Reflect.ownKeys(t);
  }
  set(t: object, key: PropertyKey, value: unknown): boolean {
    if (unchanged(t, key, value)) return true;
    (t as Record<PropertyKey, unknown>)[key] = unwrapDeep(value);
    if (typeof key === 'string') {
      if (this.entry === 'unit') this.notes.unit([...this.path, key]);
      else this.notes.whole_([...this.path, key]);
    }
    return true;
  }
  deleteProperty(t: object, key: PropertyKey): boolean {
    delete (t as Record<PropertyKey, unknown>)[key];
    if (typeof key === 'string') this.notes.whole_([...this.path, key]);
    return true;
  }
}

/** A record of named fields, each with its own shape (the state, an account, its billing). */
class StructHandler implements ProxyHandler<object> {
  constructor(
    readonly notes: Notes,
    readonly shape: { struct: Record<string, Shape>; other: Shape },
    readonly path: Path,
  ) {}
  private shapeOf(key: string): Shape {
    return this.shape.struct[key] ?? this.shape.other;
  }
  get(t: object, key: PropertyKey): unknown {
    if (key === RAW) return t;
    const value = (t as Record<PropertyKey, unknown>)[key];
    return typeof key === 'string' ? this.notes.wrap(value, this.shapeOf(key), this.path, key) : value;
  }
  set(t: object, key: PropertyKey, value: unknown): boolean {
    if (unchanged(t, key, value)) return true;
    (t as Record<PropertyKey, unknown>)[key] = unwrapDeep(value);
    if (typeof key === 'string' && this.shapeOf(key) !== 'jobs') this.notes.whole_([...this.path, key]);
    return true;
  }
  deleteProperty(t: object, key: PropertyKey): boolean {
    delete (t as Record<PropertyKey, unknown>)[key];
    if (typeof key === 'string') this.notes.whole_([...this.path, key]);
    return true;
  }
}

export function trackChanges(root: SimState, lazy?: Lazy): Tracker {
  const notes = new Notes(lazy);
  const { units, whole, lists, planned, taken, touched } = notes;
  const view = notes.proxy(root, new StructHandler(notes, ROOT as { struct: Record<string, Shape>; other: Shape }, [])) as SimState;
  observeJobs(view, {
    planned(job) {
      planned.set(job.seq!, job);
      touched.add(job.accountId);
    },
    removed(job) {
      if (!planned.delete(job.seq!)) taken.add(job.seq!);
      touched.add(job.accountId);
    },
  });

  /** Whether a path lies under one replaced whole (its own notes are in that value). */
  const underWhole = (path: Path): boolean => {
    for (let i = 1, prefix = path[0]!; i < path.length; prefix += `\u0000${path[i++]}`) if (whole.has(prefix)) return true;
    return false;
  };

  function valueAt(path: Path): { found: boolean; value?: unknown } {
    const parent = parentOf(root, path);
    const last = path[path.length - 1]!;
    return parent && Object.hasOwn(parent, last) ? { found: true, value: parent[last] } : { found: false };
  }

  return {
    view,
    changed: () => units.size > 0 || lists.size > 0 || planned.size > 0 || taken.size > 0,
    touchedAccounts: () => touched,
    changes() {
      const out: Change[] = [];
      // Shorter paths first: an account set whole comes before any note inside it (which it makes moot).
      const paths = [...units.values()].sort((a, b) => a.length - b.length);
      for (const path of paths) {
        if (underWhole(path)) continue;
        const { found, value } = valueAt(path);
        out.push(found ? ['s', path, value] : ['d', path]);
      }
      for (const note of lists.values()) {
        if (underWhole(note.path) || whole.has(keyOf(note.path))) continue;
        const { found, value } = valueAt(note.path);
        if (!found || value !== note.list) continue; // the list itself was replaced: its field is set whole
        const now = note.list;
        // What was there and still is, at the front: all of it when the list was only appended to.
        let kept = note.length ?? now.length;
        if (note.before) {
          const before = note.before;
          const trimmed = now.length > 0 ? before.indexOf(now[0]) : before.length;
          const remaining = before.length - trimmed;
          let prefix = trimmed >= 0 && remaining <= now.length;
          for (let i = 0; prefix && i < remaining; i++) if (now[i] !== before[trimmed + i]) prefix = false;
          if (!prefix) {
            out.push(['s', note.path, now]);
            continue;
          }
          if (trimmed > 0) out.push(['t', note.path, trimmed]);
          kept = remaining;
        }
        for (const element of note.changed) {
          const at = now.indexOf(element);
          if (at >= 0 && at < kept) out.push(['i', note.path, at, element]);
        }
        if (now.length > kept) out.push(['a', note.path, now.slice(kept)]);
      }
      if (taken.size > 0) out.push(['j-', [...taken]]);
      if (planned.size > 0) out.push(['j+', [...planned.values()]]);
      return out;
    },
  };
}

/** Applies changes (as written out and read back: plain data) to `root`, in order. */
export function applyChanges(root: object, changes: readonly Change[], jobs?: { planned(jobs: Job[]): void; removed(seqs: number[]): void }): void {
  const listAt = (path: Path): unknown[] | undefined => {
    const value = parentOf(root, path)?.[path[path.length - 1]!];
    return Array.isArray(value) ? value : undefined;
  };
  for (const change of changes) {
    switch (change[0]) {
      case 's': {
        const parent = parentOf(root, change[1]);
        if (parent) parent[change[1][change[1].length - 1]!] = change[2];
        break;
      }
      case 'd': {
        const parent = parentOf(root, change[1]);
        if (parent) delete parent[change[1][change[1].length - 1]!];
        break;
      }
      case 't':
        listAt(change[1])?.splice(0, change[2]);
        break;
      case 'a':
        listAt(change[1])?.push(...change[2]);
        break;
      case 'i': {
        const target = listAt(change[1]);
        if (target) target[change[2]] = change[3];
        break;
      }
      case 'j+':
        jobs?.planned(change[1]);
        break;
      case 'j-':
        jobs?.removed(change[1]);
        break;
    }
  }
}
