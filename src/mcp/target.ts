// What the MCP server talks to: a base URL and a key, read as `listen` reads them
// (`NUMBERS_API_BASE_URL`, `NUMBERS_API_KEY`), or, with neither, the stateful mock started in
// this process on a free loopback port with an account of its own. The target is the mock only
// when this server started it, or the user names it so (`--target-is-mock`; it must then announce
// itself at `GET /__mock/about`, checked against its schema in generated/mock-control.json): an
// announcement alone lifts no deployment rule, since anything (a gateway forwarding it) can make it.
import { randomBytes } from 'node:crypto';
import { keyPrefix } from '../contract/api-key.js';
import { contractValidator } from '../contract/contract-validator.js';
import { listOperations, loadOpenApi, readGeneratedJson } from '../contract/generated-files.js';
import { newControlToken } from '../mock/control-access.js';
import { startMock } from '../mock/start-mock.js';
import { createRequester, NoAnswer } from '../request/index.js';

// The prefix part 5.1 gives every key, read from the contract.
const API_KEY_PREFIX = keyPrefix(loadOpenApi());

export interface Target {
  baseUrl: URL;
  apiKey: string;
  /** Whether the target is the numbers-api mock: started here, or named so by the user. */
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
  const answer = await createRequester({ baseUrl, timeoutMs })
    .send({ method: about.method, path: about.path })
    .catch((error: unknown) => {
      throw error instanceof NoAnswer ? new TargetError(`nothing answers at ${baseUrl.origin} (${error.code ?? error.detail})`) : error;
    });
  // Only an answer the control description's own schema accepts counts as the announcement.
  const accepted = answer.status === 200 && contractValidator(control).accepts(`${about.pointer}/responses/200/content/application~1json/schema`, answer.json);
  return accepted ? { keys: String((answer.json as { keys: unknown }).keys) } : undefined;
}

export interface TargetOptions {
  /** The API; without it, the mock started in this process. */
  baseUrl?: URL;
  apiKey?: string;
  /** The token of a mock that asks for one. */
  controlToken?: string;
  /** `--target-is-mock`: the user says the base URL is the numbers-api mock. */
  targetIsMock?: boolean;
  /** The port of the mock started in this process (0, the default: a free one). */
  mockPort?: number;
  /** Where the in-process mock's warnings go (stderr: stdout is the MCP channel on stdio). */
  warn: (line: string) => void;
}

/** Opens the target: the base URL given, else the mock started in this process. */
export async function openTarget(options: TargetOptions): Promise<Target> {
  if (!options.baseUrl) {
    const controlToken = newControlToken();
    // Its own token: only this server moves the in-process mock's clock or resets it.
    const mock = await startMock({ host: '127.0.0.1', port: options.mockPort ?? 0, controlToken, warn: options.warn });
    return { baseUrl: new URL(mock.url), apiKey: ownMockKey(), isMock: true, controlToken, origin: 'in-process mock', close: () => mock.close() };
  }
  const baseUrl = options.baseUrl;
  const announced = await readAnnouncement(baseUrl);
  if (options.targetIsMock && !announced) throw new TargetError(`--target-is-mock, but ${baseUrl.origin} does not announce itself as the numbers-api mock at GET /__mock/about`);
  let apiKey = options.apiKey;
  if (!apiKey) {
    if (announced?.keys !== 'any') throw new TargetError(`no API key: set NUMBERS_API_KEY (a key beginning ${API_KEY_PREFIX}) for ${baseUrl.origin}`);
    apiKey = ownMockKey();
  }
  return { baseUrl, apiKey, isMock: options.targetIsMock === true, ...(options.controlToken ? { controlToken: options.controlToken } : {}), origin: baseUrl.origin, close: async () => {} };
}

