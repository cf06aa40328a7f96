// What a change is, and the collector that classifies and de-duplicates them.

export type Classification = 'breaking' | 'non-breaking' | 'documentation';

/**
 * Who is broken by a schema change depends on who writes the value:
 * - `request`: the client writes it and the service reads it (request bodies, parameters, an
 *   AsyncAPI message the service receives, a webhook receiver's answer). Narrowing what may be
 *   sent breaks clients.
 * - `response` / `event`: the service writes it and the client reads it (responses, response
 *   headers, webhook deliveries and AsyncAPI messages the service sends). Widening what may
 *   arrive, or removing what was promised, breaks consumers.
 */
export type Direction = 'request' | 'response' | 'event';

export const INFERRED_NOTE = 'inferred: non-breaking for the documented contract';

export interface Change {
  classification: Classification;
  /** A stable, kebab-case name of the rule that classified it, e.g. `property-removed`. */
  code: string;
  /** What changed, in a sentence. */
  message: string;
  /** `workflows`: a step of the Arazzo workflows that the change breaks (./workflows.ts). */
  document: 'openapi' | 'asyncapi' | 'workflows';
  /** JSON pointer of the changed item in the bundled document (see `in`). */
  pointer: string;
  /** `current` for additions and changes; `previous` when the item exists only in the previous release. */
  in: 'current' | 'previous';
  /** The operations, webhooks or AsyncAPI operations and the part of each that the change reaches. */
  affects: string[];
  /** The sides the changed item is on (a shared schema may be on several); empty for document-level items. */
  directions: Direction[];
  /**
   * Set when the change is in a part marked `x-inferred` (spec/EXTENSIONS.md): such a change is
   * reported but never breaking for the documented contract; `wouldBe` keeps what it would
   * otherwise have been.
   */
  inferred?: true;
  wouldBe?: Classification;
  note?: string;
  before?: unknown;
  after?: unknown;
}

export interface NewChange {
  classification: Classification;
  code: string;
  message: string;
  pointer: string;
  in?: 'current' | 'previous';
  direction?: Direction;
  inferred?: boolean;
  before?: unknown;
  after?: unknown;
}

/** Collects changes; one entry per (pointer, rule, outcome), listing every place it affects. */
export class ChangeSink {
  private readonly byKey = new Map<string, Change>();

  constructor(readonly document: 'openapi' | 'asyncapi') {}

  add(change: NewChange, affects: string | undefined): void {
    const inferred = Boolean(change.inferred);
    // x-inferred (spec/EXTENSIONS.md): an inferred part is advisory, so a change to it is reported
    // but never breaks the documented contract.
    const classification: Classification =
      inferred && change.classification === 'breaking' ? 'non-breaking' : change.classification;
    // The message may name the field by its path from one operation's body (`[].body` in a list,
    // `body` in a single record); the pointer identifies the change, so the first message is kept.
    const key = [change.pointer, change.in ?? 'current', change.code, classification, inferred, JSON.stringify(change.before) ?? '', JSON.stringify(change.after) ?? ''].join('\u0000');
    let entry = this.byKey.get(key);
    if (!entry) {
      entry = {
        classification,
        code: change.code,
        message: change.message,
        document: this.document,
        pointer: change.pointer,
        in: change.in ?? 'current',
        affects: [],
        directions: [],
        ...(inferred ? { inferred: true as const, wouldBe: change.classification, note: classification === change.classification ? 'in an x-inferred part' : INFERRED_NOTE } : {}),
        ...(change.before !== undefined ? { before: change.before } : {}),
        ...(change.after !== undefined ? { after: change.after } : {}),
      };
      this.byKey.set(key, entry);
    }
    if (affects && !entry.affects.includes(affects)) entry.affects.push(affects);
    if (change.direction && !entry.directions.includes(change.direction)) entry.directions.push(change.direction);
  }

  list(): Change[] {
    return [...this.byKey.values()];
  }
}

const ORDER: Record<Classification, number> = { breaking: 0, 'non-breaking': 1, documentation: 2 };

/** Breaking first, then by document and pointer: stable output for reading and for diffs of diffs. */
export function sortChanges(changes: Change[]): Change[] {
  return [...changes].sort(
    (a, b) =>
      ORDER[a.classification] - ORDER[b.classification] ||
      a.document.localeCompare(b.document) ||
      a.pointer.localeCompare(b.pointer) ||
      a.code.localeCompare(b.code),
  );
}
