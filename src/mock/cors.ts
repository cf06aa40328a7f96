// CORS for the mock over HTTP, so a frontend on any origin can call it from a browser: the same
// headers `prism mock` sends (prism-http-server server.ts `setCommonCORSHeaders`), on every answer,
// and the answer to a browser's preflight.
import type http from 'node:http';

type Headers = http.IncomingHttpHeaders;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The CORS headers of every answer. */
export function corsHeaders(request: Headers): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': single(request.origin) || '*',
    'Access-Control-Allow-Headers': single(request['access-control-request-headers']) || '*',
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': single(request['access-control-expose-headers']) || '*',
  };
}

/** The answer to a browser's preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), else undefined. */
export function preflightAnswer(method: string | undefined, request: Headers): { status: number; headers: Record<string, string> } | undefined {
  if (method !== 'OPTIONS' || !request.origin || !request['access-control-request-method']) return undefined;
  return {
    status: 204,
    headers: {
      ...corsHeaders(request),
      'Access-Control-Allow-Methods': single(request['access-control-request-method'])!,
      Vary: 'origin',
      'Content-Length': '0',
    },
  };
}
