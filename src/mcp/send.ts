// Sending one request of a tool to the target, and reading its answer. The key goes to the
// target's origin only: redirects are never followed (a 3xx is an answer like any other, so the
// key cannot be carried to another host), and an answer is read up to a bound.
import { readCapped } from '../listen/agent.js';
import { CONTROL_TOKEN_HEADER } from '../mock/control-access.js';
import type { ToolParameter } from './operation-tools.js';
import type { Answer } from '../workflows/arazzo-runner.js';
import { answerOf, stepUrl } from '../workflows/step-request.js';

/** What a tool asks the target, already checked by the policy. */
export interface Outgoing {
  method: string;
  /** The path template, e.g. `/api/v1/numbers/{id}`. */
  path: string;
  parameters: ToolParameter[];
  /** Parameter values by name. */
  values: Record<string, unknown>;
  /** The JSON body, when there is one. */
  body?: unknown;
  /**
   * The `Authorization` header: undefined sends the target's key; a string sends that value (a
   * workflow step that names the key it holds); null sends none.
   */
  authorization?: string | null;
  /** A request to the mock's control surface (it carries the control token, when there is one). */
  control?: boolean;
}

export type { Answer };

export interface SendTarget {
  baseUrl: URL;
  apiKey: string;
  controlToken?: string;
}

/** An answer larger than this is cut off (an agent reads it; no documented answer comes near). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Longer than the longest documented wait (`events/wait`, 60 s, part 8), with room for the network. */
const TIMEOUT_MS = 75_000;

export class SendError extends Error {}

/** Sends one request and reads its answer. Network failures throw `SendError` with a line that names no key. */
export async function send(target: SendTarget, outgoing: Outgoing, signal?: AbortSignal): Promise<Answer> {
  const url = stepUrl(target.baseUrl.href, outgoing, outgoing.values);
  const headers: Record<string, string> = { accept: 'application/json' };
  const authorization = outgoing.authorization === undefined ? `Bearer ${target.apiKey}` : outgoing.authorization;
  if (authorization !== null) headers.authorization = authorization;
  for (const parameter of outgoing.parameters) {
    const value = outgoing.values[parameter.name];
    if (parameter.in === 'header' && value !== undefined) headers[parameter.name.toLowerCase()] = String(value);
  }
  if (outgoing.control && target.controlToken) headers[CONTROL_TOKEN_HEADER.toLowerCase()] = target.controlToken;
  // The control surface takes changes only as JSON (spec/mock-control.yaml), `reset` with no body too.
  const hasBody = outgoing.body !== undefined || (outgoing.control === true && outgoing.method.toLowerCase() !== 'get');
  if (hasBody) headers['content-type'] = 'application/json';
  const signals = [AbortSignal.timeout(TIMEOUT_MS), ...(signal ? [signal] : [])];
  let response: Response;
  try {
    response = await fetch(url, {
      method: outgoing.method.toUpperCase(),
      headers,
      ...(hasBody ? { body: JSON.stringify(outgoing.body ?? {}) } : {}),
      redirect: 'manual',
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new SendError(`${outgoing.method.toUpperCase()} ${url.pathname} to ${url.origin} failed (${cause}); nothing is known of its outcome`);
  }
  const text = await readCapped(response, MAX_ANSWER_BYTES);
  if (text === undefined) throw new SendError(`the answer to ${outgoing.method.toUpperCase()} ${url.pathname} is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; it was not read`);
  return answerOf(response, text);
}
