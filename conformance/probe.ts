// Before the suite runs: is the base URL this API at all, and is the key accepted? A static file
// server, a different API or a wrong path prefix would otherwise give a hundred failed checks that
// all say the same thing; two reads of the account (part 4.2) show it, and the run stops with one
// line. Reads only (part 7.1): nothing is changed.
import { findOperation, listOperations, type Json } from './description.js';
import { networkCause } from './http.js';

/** A base URL that is not a deployment of this API, or a key it refuses: exit 2, one line, no help text. */
export class TargetError extends Error {}

interface Answer {
  status: number;
  type: string;
  json: boolean;
}

function describeAnswer(a: Answer): string {
  return `${a.status} ${a.type || 'without a Content-Type'}${a.type.includes('json') && !a.json ? ' (not parseable)' : ''}`;
}

async function read(url: string, authorization: string | undefined, timeoutMs: number, baseUrl: string): Promise<Answer> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? 'no answer in time' : networkCause(error);
    throw new TargetError(`Cannot reach ${baseUrl} (${why}). Check --base-url.`);
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  let json = false;
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      JSON.parse(text);
      json = true;
    } catch {
      json = false;
    }
  }
  return { status: response.status, type, json };
}

/**
 * Reads the account without a key and with it. This API answers JSON, and 401 without a key
 * (part 5.1); an address where neither read answers JSON, or both answer 404, is not it. A key
 * the deployment answers 401 to would fail every check that sends it, so that stops the run too.
 * Rate limits (429) are not judged here: the suite waits them out.
 */
export async function probeDeployment(document: Json, baseUrl: string, apiKey: string, timeoutMs: number): Promise<void> {
  const op = findOperation(listOperations(document), 'getAccount');
  if (!op) return;
  const url = `${baseUrl}${op.path}`;
  const limit = Math.min(timeoutMs, 15_000);
  const without = await read(url, undefined, limit, baseUrl);
  const withKey = await read(url, `Bearer ${apiKey}`, limit, baseUrl);
  if (without.status === 429 || withKey.status === 429) return;
  const request = `GET ${op.path}`;
  if ((!without.json && !withKey.json) || (without.status === 404 && withKey.status === 404)) {
    throw new TargetError(
      `${baseUrl} does not look like this API: ${request} answered ${describeAnswer(without)} without a key and ${describeAnswer(withKey)} with it ` +
        `(this API answers JSON, and 401 without a key, part 5.1). Check --base-url: it is the address the /api/v1 paths start from.`,
    );
  }
  if (without.status === 401 && withKey.status === 401) {
    throw new TargetError(`The API key was refused: ${request} answered 401 with it, as without one. Check --api-key (or NUMBERS_API_KEY).`);
  }
}
