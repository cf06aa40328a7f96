// What passes between a transport (node:http, MSW) and the simulator core. Plain
// data only: no Node built-in, no Request/Response class, so both transports build the same thing.
import type { JsonObject } from '../contract/operations.js';
import type { Verdict } from '../contract/verdict.js';
import type { SimEvent, SimState } from './state.js';

export type { JsonObject, SimEvent, Verdict };

export interface SimRequest {
  method: string;
  /** The path without the query, e.g. `/api/v1/numbers/pn_1`. */
  pathname: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body, `undefined` when there was none. */
  body: unknown;
  /** How many bytes the body had as it came (what it may add to an account, src/simulator/account-bounds.ts). */
  size?: number;
  /** What the request breaks of the contract (a body that could not be read, then the gate's verdicts); empty when it is valid. */
  violations: Verdict[];
  /** The parts of a `multipart/form-data` body, parsed by the transport (10DLC submission, part 4.5). */
  form?: Record<string, FormPart>;
  /** The body as it came, for a responder that passes it on (Prism's, the validating proxy's forwarder). */
  bytes?: Uint8Array;
  /**
   * Who asks the control surface, as the door proved it (src/mock/control-access.ts): `process`, a
   * caller in this process (the MSW handlers: no network); `token`, the control token; `machine`,
   * a program of this machine where the mock has no token (never a page). None: anyone else. Only
   * the control surface reads it (which snapshots a request may touch, src/serve/control.ts).
   */
  controlProof?: 'process' | 'token' | 'machine';
}

export interface FormPart {
  /** Text, or the bytes of a file part. */
  value: string | Uint8Array;
  filename?: string;
  contentType?: string;
}

export interface SimResponse {
  status: number;
  headers?: Record<string, string>;
  /** A JSON value; `undefined` for no body. */
  body?: unknown;
  /**
   * The body as a transport sends it: `body` as JSON text, written when the answer was made
   * (src/serve/pipeline.ts), so the answer shows the state its own request left, whatever came
   * after; or a body passed on as it came (Prism's answer on the example server), with its own
   * `Content-Type` header and no `body`.
   */
  text?: string;
  /** The body as an upstream sent it, byte for byte (the validating proxy's deployment), with its own `Content-Type`. */
  bytes?: Uint8Array;
  /** What the exchange breaks of the contract, as the answer check found it: the door renders them (a log line each). */
  verdicts?: Verdict[];
  /**
   * An answer that waits (a long poll, `POST /api/v1/events/wait`): the transport holds the
   * request, asks `check` again after each event of the account, and answers `expire()` when
   * `timeoutMs` of real time pass first. `status`/`body` are unused then.
   */
  hold?: SimHold;
}

export interface SimHold {
  accountId: string;
  /** Real milliseconds to hold at most. */
  timeoutMs: number;
  /**
   * The answer once something it waits for has happened in `state` (the state the store's run
   * sees: it may change what it keeps, a wait's cursor), else undefined.
   */
  check(state: SimState): SimResponse | undefined;
  /** The answer when nothing came in time. */
  expire(): SimResponse;
  /** Called when the request ends without an answer (the client went away). */
  cancel?(): void;
}
