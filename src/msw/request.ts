// A Fetch `Request` (what an MSW resolver receives) as the simulator reads it: the browser-safe
// twin of src/mock/http-transport.ts `toSimRequest`; both read the body with
// src/serve/request-body.ts, so both answer a bad body alike.
import { readBody } from '../serve/request-body.js';
import { dict } from '../contract/dict.js';
import type { SimRequest } from '../simulator/types.js';

/**
 * `pathname` is the request's path below the base URL it was sent to (`/api/v1/account` for
 * `https://api.example.com/api/v1/account`, and for `https://host/prefix/api/v1/account` when the
 * base URL is `https://host/prefix`).
 */
export async function fetchToSimRequest(request: Request, pathname: string): Promise<SimRequest> {
  const url = new URL(request.url);
  const headers = dict<string | undefined>();
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const sim: SimRequest = {
    method: request.method.toUpperCase(),
    pathname,
    query: url.searchParams,
    headers,
    body: undefined,
    violations: [],
  };
  if (request.method === 'GET' || request.method === 'HEAD') return sim;
  const bytes = new Uint8Array(await request.clone().arrayBuffer());
  sim.size = bytes.length;
  await readBody(sim, bytes, headers['content-type']);
  return sim;
}
