// Before the suite runs: is the base URL this API at all, and is the key accepted? A static file
// server, a different API or a wrong path prefix would otherwise give a hundred failed checks that
// all say the same thing; two reads of the account (part 4.2) show it, and the run stops with one
// line. Reads only (part 7.1): nothing is changed.
import { findOperation, listOperations, type Json } from './description.js';
import { createRequester, NoAnswer, type Requester } from '../src/request/index.js';

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

async function read(requests: Requester, path: string, authorization: string | null): Promise<Answer> {
  try {
    const answer = await requests.send({ method: 'get', path, params: { header: { authorization } } });
    const type = (answer.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return { status: answer.status, type, json: (type === 'application/json' || type.endsWith('+json')) && answer.json !== undefined };
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
    const why = error.kind === 'timeout' ? 'no answer in time' : error.detail;
    throw new TargetError(`Cannot reach ${requests.baseUrl} (${why}). Check --base-url.`);
  }
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
  const requests = createRequester({ baseUrl, apiKey: null, secrets: [apiKey], timeoutMs: Math.min(timeoutMs, 15_000) });
  const without = await read(requests, op.path, null);
  const withKey = await read(requests, op.path, `Bearer ${apiKey}`);
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
