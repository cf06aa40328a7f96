// A Fetch `Request` (what an MSW resolver receives) as the simulator reads it: the browser-safe
// twin of src/mock/http-transport.ts `toSimRequest`; both are read by src/serve/request-body.ts,
// so both answer a bad body alike.
import { readRequest } from '../serve/request-body.js';
import { dict } from '../contract/dict.js';
import type { SimRequest } from '../simulator/types.js';

/**
 * `pathname` is the request's path below the base URL it was sent to (`/api/v1/account` for
 * `https://api.example.com/api/v1/account`, and for `https://host/prefix/api/v1/account` when the
 * base URL is `https://host/prefix`).
 */
export async function fetchToSimRequest(request: Request, pathname: string): Promise<SimRequest> {
  const headers = dict<string | undefined>();
  request.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  const bytes = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.clone().arrayBuffer());
  return readRequest({ method: request.method, pathname, query: new URL(request.url).searchParams, headers }, bytes);
}
