// A request's body as the simulator reads it, the same for every transport: JSON by its media
// type, `multipart/form-data` into parts (the 10DLC submission, part 4.5), any other text as text.
// A body that cannot be read is a verdict about the body as a whole (`bodyTooLarge`,
// `bodyNotJson`, `bodyNotMultipart`), so it gets the documented 400 (part 7) on the HTTP mock and
// in-process alike. Browser-safe (Fetch's Response parses the form).
import { ruleVerdict } from '../contract/verdict.js';
import { withoutPrototype } from '../simulator/state.js';
import type { FormPart, SimRequest } from '../simulator/types.js';

/** Requests larger than this are refused with the documented 400 (Prism reads up to 10 MB too). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType);
}

/** The request as the pipeline reads it, for every door: `head`, and its body read from `bytes` when it has one. */
export async function readRequest(head: Pick<SimRequest, 'method' | 'pathname' | 'query' | 'headers'>, bytes?: Uint8Array, tooLarge = false): Promise<SimRequest> {
  // One shape for every request (a spread of `head` made the simulator's reads of it slower).
  const request: SimRequest = { method: head.method.toUpperCase(), pathname: head.pathname, query: head.query, headers: head.headers, body: undefined, violations: [] };
  if (bytes) {
    request.bytes = bytes;
    request.size = bytes.length;
    await readBody(request, bytes, head.headers['content-type'], tooLarge);
  }
  return request;
}

/**
 * Sets `request.body` (or `request.form`) from the raw `bytes`, or records why it cannot be read.
 * `tooLarge`: the transport stopped keeping the bytes past MAX_BODY_BYTES.
 */
export async function readBody(request: SimRequest, bytes: Uint8Array, contentType: string | undefined, tooLarge = false): Promise<void> {
  if (tooLarge || bytes.length > MAX_BODY_BYTES) {
    request.violations.push(ruleVerdict({ in: 'body', keyword: 'bodyTooLarge', params: { limit: MAX_BODY_BYTES } }));
    return;
  }
  if (bytes.length === 0) return;
  if (isJsonType(contentType)) {
    try {
      // Objects without a prototype: a body key `__proto__` or `constructor` is a key like any other.
      request.body = JSON.parse(new TextDecoder().decode(bytes), withoutPrototype);
    } catch (error) {
      request.violations.push(ruleVerdict({ in: 'body', keyword: 'bodyNotJson', params: { reason: (error as Error).message } }));
    }
  } else if (contentType && /^multipart\/form-data/i.test(contentType)) {
    try {
      const form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
      request.form = Object.create(null) as Record<string, FormPart>;
      for (const [name, value] of form as unknown as Iterable<[string, string | (Blob & { name: string })]>) {
        request.form[name] =
          typeof value === 'string' ? { value } : { value: new Uint8Array(await value.arrayBuffer()), filename: value.name, contentType: value.type };
      }
    } catch (error) {
      request.violations.push(ruleVerdict({ in: 'body', keyword: 'bodyNotMultipart', params: { reason: (error as Error).message } }));
    }
  } else {
    request.body = new TextDecoder().decode(bytes);
  }
}
