// What the MCP server talks to: a base URL and a key, read as `listen` reads them
// (`NUMBERS_API_BASE_URL`, `NUMBERS_API_KEY`), or, with neither, the stateful mock started in
// this process on a free loopback port with an account of its own. Whether the target is this
// package's mock is learnt from what it announces (`GET /__mock/about`, the `mockAbout`
// operation of generated/mock-control.json, checked against its own schema), never guessed from
// its address or behaviour.
import { randomBytes } from 'node:crypto';
import { keyPrefix } from '../contract/api-key.js';
import { contractValidator } from '../contract/contract-validator.js';
import { listOperations, loadOpenApi, readGeneratedJson } from '../contract/generated-files.js';
import { DEFAULT_BASE_URL } from '../listen/cli.js';
import { newControlToken } from '../mock/control-access.js';
import { startMock } from '../mock/start-mock.js';
import { createRequester, NoAnswer } from '../request/index.js';

// The prefix part 5.1 gives every key, read from the contract.
const API_KEY_PREFIX = keyPrefix(loadOpenApi());

export interface Target {
  baseUrl: URL;
  apiKey: string;
  /** Whether the target announced itself as the numbers-api mock. */
  isMock: boolean;
  /** The mock's control token, sent on changes to its control surface. */
  controlToken?: string;
  /** Where the target came from, for the start line (never the key). */
  origin: 'in-process mock' | string;
  close(): Promise<void>;
}

export class TargetError extends Error {}

/** A key of the server's own, for a mock that accepts any well-formed key: an account nobody else uses. */
export function ownMockKey(): string {
  return `${API_KEY_PREFIX}mcp_${randomBytes(12).toString('hex')}`;
}

/** What the target announces at the `mockAbout` operation: `{mock, keys}`, or undefined when it announces nothing valid. */
export async function readAnnouncement(baseUrl: URL, timeoutMs = 5000): Promise<{ keys: string } | undefined> {
  const control = readGeneratedJson('mock-control.json');
  const about = listOperations(control).find((entry) => entry.operation.operationId === 'mockAbout');
  if (!about) return undefined;
  let answer;
  try {
    answer = await createRequester({ baseUrl, timeoutMs }).send({ method: about.method, path: about.path });
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
    throw new TargetError(`nothing answers at ${baseUrl.origin} (${error.code ?? error.detail})`);
  }
  // Only an answer the control description's own schema accepts counts as the announcement.
  const accepted = answer.status === 200 && contractValidator(control).accepts(`${about.pointer}/responses/200/content/application~1json/schema`, answer.json);
  return accepted ? { keys: String((answer.json as { keys: unknown }).keys) } : undefined;
}

export interface TargetOptions {
  /** `--base-url`, else `NUMBERS_API_BASE_URL`. */
  baseUrl?: URL;
  /** `NUMBERS_API_KEY`. */
  apiKey?: string;
  /** `NUMBERS_API_CONTROL_TOKEN`: the token of a mock that asks for one. */
  controlToken?: string;
  /** Where the in-process mock's warnings go (stderr: stdout is the MCP channel on stdio). */
  warn: (line: string) => void;
}

/** Opens the target: the in-process mock with neither a base URL nor a key, else the base URL given (the mock on 4010 by default, as `listen`). */
export async function openTarget(options: TargetOptions): Promise<Target> {
  if (!options.baseUrl && !options.apiKey) {
    const controlToken = newControlToken();
    // Its own token: only this server moves the in-process mock's clock or resets it.
    const mock = await startMock({ host: '127.0.0.1', port: 0, controlToken, warn: options.warn });
    const baseUrl = new URL(mock.url);
    const announced = await readAnnouncement(baseUrl).catch(() => undefined);
    return { baseUrl, apiKey: ownMockKey(), isMock: announced !== undefined, controlToken, origin: 'in-process mock', close: () => mock.close() };
  }
  const baseUrl = options.baseUrl ?? new URL(DEFAULT_BASE_URL);
  const announced = await readAnnouncement(baseUrl);
  let apiKey = options.apiKey;
  if (!apiKey) {
    if (announced?.keys !== 'any') throw new TargetError(`no API key: set NUMBERS_API_KEY (a key beginning ${API_KEY_PREFIX}) for ${baseUrl.origin}`);
    apiKey = ownMockKey();
  }
  return { baseUrl, apiKey, isMock: announced !== undefined, ...(options.controlToken ? { controlToken: options.controlToken } : {}), origin: baseUrl.origin, close: async () => {} };
}

