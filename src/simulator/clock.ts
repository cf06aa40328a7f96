// Time and ids come from here, injected, so that every rule is a function of state, request and
// clock and a test can make both deterministic.

export interface Clock {
  /** Milliseconds since the epoch, as the simulated service sees them. */
  now(): number;
}

/** The machine's time plus an offset the control surface moves forward ("advance the clock"). */
export interface SimClock extends Clock {
  advance(ms: number): void;
  /** How far the simulated clock is ahead of the machine's. */
  offset(): number;
}

export function systemClock(base: Clock = { now: () => Date.now() }, initialOffset = 0): SimClock {
  let offset = initialOffset;
  return {
    now: () => base.now() + offset,
    advance(ms) {
      offset += ms;
    },
    offset: () => offset,
  };
}

/** A clock that moves only when told: for tests. */
export function manualClock(start = Date.parse('2026-11-23T12:00:00.000Z')): SimClock & { set(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    offset: () => 0,
    set(ms) {
      now = ms;
    },
  };
}

export interface IdGenerator {
  /** A new id with the prefix the contract's examples use (`msg_`, `call_`, `pn_`, ...). */
  next(prefix: string): string;
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Ids in the style of the contract's examples (`msg_01JD3W2K8F5R9T7Y6X4V3N2M1Q`): a time part,
 * then random characters from WebCrypto (in Node 20 and every browser). Sortable by creation.
 */
export function randomIds(clock: Clock): IdGenerator {
  let last = '';
  let counter = 0;
  // Random bytes are drawn from WebCrypto in blocks: one call per id costs more than the rest of
  // a request's rules together (scripts/bench/mock.mjs).
  const pool = new Uint8Array(4096);
  let used = pool.length;
  const randomByte = (): number => {
    if (used === pool.length) {
      globalThis.crypto.getRandomValues(pool);
      used = 0;
    }
    return pool[used++]!;
  };
  return {
    next(prefix) {
      let time = clock.now();
      let head = '';
      for (let i = 0; i < 10; i++) {
        head = ALPHABET[time % 32]! + head;
        time = Math.floor(time / 32);
      }
      counter = head === last ? counter + 1 : 0;
      last = head;
      let tail = ALPHABET[(counter >> 5) % 32]! + ALPHABET[counter % 32]!;
      for (let i = 0; i < 12; i++) tail += ALPHABET[randomByte() % 32];
      return `${prefix}${head}${tail}`;
    },
  };
}

/** `msg_000001`, `msg_000002`, ... per prefix: for tests. */
export function sequentialIds(): IdGenerator {
  const counts = new Map<string, number>();
  return {
    next(prefix) {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      return `${prefix}${String(n).padStart(6, '0')}`;
    },
  };
}
