// What a browser needs from the mock over HTTP (both the stateful mock and the example server):
//
// - CORS for a bearer-token API (part 5.1: the key is a header, never a cookie): any origin may
//   call, without credentials mode, so every answer says `Access-Control-Allow-Origin: *` and
//   exposes its headers (`Retry-After` on a 429 ...); a preflight is answered here with the
//   methods of the path and the headers the page asked for (`Authorization` is never covered by
//   a `*`, so the asked-for list is echoed), cached for ten minutes.
// - No connection reuse: Chromium re-sends a request whose answer is 408 when it came on a reused
//   keep-alive connection (net/http/http_network_transaction.cc), so a page's `events/wait` saw
//   its 408 after two or three windows. A browser's request (one that carries `Sec-Fetch-Site`,
//   which every browser sends and Node's fetch does not) is answered `Connection: close`, so every
//   one comes on a fresh connection and a 408 reaches the page once, after its timeout. Other
//   clients keep their keep-alive.
import type http from 'node:http';

type Headers = http.IncomingHttpHeaders;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** Whether the request comes from a browser (a page's fetch or XHR, a navigation). */
export function fromBrowser(request: Headers): boolean {
  return request['sec-fetch-site'] !== undefined;
}

/** The CORS headers of every answer, and the connection rule for browsers. */
export function browserHeaders(request: Headers): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': '*',
    ...(fromBrowser(request) ? { Connection: 'close' } : {}),
  };
}

/**
 * The answer to a browser's preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`),
 * else undefined. `methodsAt` gives the methods the path has operations for.
 */
export function preflightAnswer(method: string | undefined, request: Headers, methodsAt: (pathname: string) => string[], pathname: string): { status: number; headers: Record<string, string> } | undefined {
  const asked = single(request['access-control-request-method']);
  if (method !== 'OPTIONS' || !request.origin || !asked) return undefined;
  const methods = methodsAt(pathname);
  return {
    status: 204,
    headers: {
      ...browserHeaders(request),
      'Access-Control-Allow-Methods': [...new Set([...(methods.length > 0 ? methods : [asked.toUpperCase()]), 'OPTIONS'])].join(', '),
      'Access-Control-Allow-Headers': single(request['access-control-request-headers']) || 'Authorization, Content-Type, Prefer, Idempotency-Key',
      'Access-Control-Max-Age': '600',
      Vary: 'Access-Control-Request-Method, Access-Control-Request-Headers',
      'Content-Length': '0',
    },
  };
}
