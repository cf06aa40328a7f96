// A Fetch `Request` (what an MSW resolver receives) as the simulator reads it: the browser-safe
// twin of src/mock/simulator-http.ts `toSimRequest`, with the same verdicts on an unreadable body
// (the same documented 400, `fieldErrors.body`), so both transports answer a bad body alike.
import type { FormPart, SimRequest } from '../simulator/types.js';

/** Requests larger than this are refused with the documented 400, as on the HTTP mock. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType);
}

/**
 * `pathname` is the request's path below the base URL it was sent to (`/api/v1/account` for
 * `https://api.example.com/api/v1/account`, and for `https://host/prefix/api/v1/account` when the
 * base URL is `https://host/prefix`).
 */
export async function fetchToSimRequest(request: Request, pathname: string): Promise<SimRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string | undefined> = {};
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
  if (bytes.length > MAX_BODY_BYTES) {
    sim.violations.push({ location: ['body'], message: `must be at most ${MAX_BODY_BYTES} bytes` });
    return sim;
  }
  const contentType = headers['content-type'];
  if (bytes.length > 0 && isJsonType(contentType)) {
    try {
      sim.body = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      sim.violations.push({ location: ['body'], message: `is not valid JSON (${(error as Error).message})` });
    }
  } else if (bytes.length > 0 && contentType && /^multipart\/form-data/i.test(contentType)) {
    try {
      const form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
      sim.form = {};
      for (const [name, value] of form as unknown as Iterable<[string, string | (Blob & { name: string })]>) {
        const part: FormPart =
          typeof value === 'string' ? { value } : { value: new Uint8Array(await value.arrayBuffer()), filename: value.name, contentType: value.type };
        sim.form[name] = part;
      }
    } catch (error) {
      sim.violations.push({ location: ['body'], message: `is not valid multipart/form-data (${(error as Error).message})` });
    }
  } else if (bytes.length > 0) {
    sim.body = new TextDecoder().decode(bytes);
  }
  return sim;
}
