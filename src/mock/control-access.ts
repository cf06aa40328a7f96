// Who may drive the HTTP mock's control surface (`/__mock/...`, spec/mock-control.yaml), issue 27
// item 6. The service's own operations are for any page (CORS for a bearer-token API, browsers.ts);
// the control surface resets every account and moves everyone's clock, so a request that changes
// something there (POST, PUT, PATCH, DELETE) must come from a program or a page of this machine:
//
// - `Content-Type: application/json`, even for `reset` with no body: no page on another origin can
//   send that without a preflight, and the preflight of another origin is refused here, so a page on
//   the internet cannot reset the mock with a form or a "simple" fetch;
// - an `Origin`, when there is one, of this machine (`localhost`, `127.0.0.1`, `[::1]`), and a
//   `Host` that is an address or `localhost` (a name that resolves here, DNS rebinding, is refused);
// - never a webhook delivery (`X-Service-Event-ID`);
// - with `--strict-keys`, or bound to an address other than loopback, the control token in
//   `X-Mock-Control-Token` (printed at start, or set with `--control-token`).
//
// Reading (`GET /__mock/about`, `GET /__mock/clock`, the list of snapshots) stays open; a snapshot
// itself is a key's account or every account, so `GET /__mock/snapshots/{name}` is guarded as a
// change (but needs no JSON body type: a page cannot read another origin's answer without CORS,
// which it is refused). Which snapshots a request may touch is the control surface's
// (src/serve/control.ts), from the key it carries and the proof said here (`proof`): the control
// token, or, on a mock without one, a program of this machine (no page: no `Origin`, no
// `Sec-Fetch-Site`). The in-process MSW handlers have no network and no other origin: none of this
// applies to them.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { isIP } from 'node:net';
import { CONTROL_PREFIX, CONTROL_TOKEN_HEADER } from '../delivery/control-paths.js';
import { isJsonType } from '../serve/request-body.js';
import { fromBrowser } from './browsers.js';
import type { SimResponse } from '../simulator/types.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const unbracket = (host: string): string => host.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/** Whether an address the mock listens on reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = unbracket(host);
  return LOOPBACK_NAMES.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name) || name === '::ffff:127.0.0.1';
}

/** A fresh control token: 128 random bits, hex. */
export function newControlToken(): string {
  return randomBytes(16).toString('hex');
}

export interface ControlAccess {
  /** Whether `pathname` is the control surface's. */
  covers(pathname: string): boolean;
  /** For a browser's preflight to the control surface from another machine's origin: the refusal (403, no CORS). */
  refusesPreflight(req: http.IncomingMessage): boolean;
  /** The refusal of a request that would change something on the control surface, or undefined when it may. */
  refusal(req: http.IncomingMessage): SimResponse | undefined;
  /** What the request proves of who sends it (SimRequest.controlProof): the token, a program of this machine, or nothing. */
  proof(req: http.IncomingMessage): 'token' | 'machine' | undefined;
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A read that hands out an account's records (a snapshot as a file): guarded as a change is. */
const ACCOUNT_BEARING_READ = /^\/__mock\/snapshots\/[^/]+\/?$/;

function originOfThisMachine(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false; // `null` (a sandboxed page, a file) and anything unreadable
  }
}

/** Whether `Host` names this machine by address or as `localhost` (not by a name that could be rebound). */
function hostOfThisMachine(host: string | undefined, bound: string): boolean {
  if (host === undefined) return true; // HTTP/1.0 without Host: no page sends that
  const name = unbracket(host.replace(/:\d+$/, ''));
  return name === 'localhost' || isIP(name) !== 0 || name === unbracket(bound);
}

/** Whether `given` is `token`, compared in constant time (every control port's token check). */
export function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of `Authorization: Bearer <token>`, if the header is that. */
export const bearerToken = (header: string | undefined): string | undefined => /^Bearer (\S+)$/.exec(header ?? '')?.[1];

const refused = (error: string): SimResponse => ({ status: 403, body: { error } });

/** `token`: required on every change when given. `boundHost`: the address the mock listens on. */
export function controlAccess(boundHost: string, token: string | undefined): ControlAccess {
  return {
    covers: (pathname) => pathname.startsWith(CONTROL_PREFIX),
    refusesPreflight: (req) => typeof req.headers.origin === 'string' && !originOfThisMachine(req.headers.origin),
    refusal(req) {
      const method = (req.method ?? 'GET').toUpperCase();
      if (!CHANGES.has(method) && !ACCOUNT_BEARING_READ.test((req.url ?? '').split('?', 1)[0]!)) return undefined;
      const { origin, host } = req.headers;
      if (req.headers['x-service-event-id'] !== undefined) return refused('A webhook delivery never reaches the mock’s control surface.');
      if (typeof origin === 'string' && !originOfThisMachine(origin)) {
        return refused(`The mock’s control surface is not for pages on other machines’ origins (${origin.slice(0, 100)}).`);
      }
      // With a token, the token is the proof (a team's mock is reached by its name); without, a
      // page that rebound a name to this machine is told apart by its Host.
      if (token === undefined && !hostOfThisMachine(host, boundHost)) {
        return refused(`The mock’s control surface answers only to this machine’s addresses, not to Host ${String(host).slice(0, 100)}.`);
      }
      if (CHANGES.has(method) && !isJsonType(req.headers['content-type'])) {
        return refused('Send requests to the mock’s control surface with Content-Type: application/json (also when there is no body).');
      }
      const given = req.headers[CONTROL_TOKEN_HEADER.toLowerCase()];
      if (token !== undefined && !sameToken(Array.isArray(given) ? given[0] : given, token)) {
        return refused(`This mock’s control surface needs its control token in ${CONTROL_TOKEN_HEADER} (printed when the mock started).`);
      }
      return undefined;
    },
    proof(req) {
      const given = req.headers[CONTROL_TOKEN_HEADER.toLowerCase()];
      if (token !== undefined) return sameToken(Array.isArray(given) ? given[0] : given, token) ? 'token' : undefined;
      const page = req.headers.origin !== undefined || fromBrowser(req.headers);
      return !page && req.headers['x-service-event-id'] === undefined && hostOfThisMachine(req.headers.host, boundHost) ? 'machine' : undefined;
    },
  };
}
