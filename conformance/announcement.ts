// Part 5.1 against this package's own mock. The stateful mock accepts any well-formed key (each
// opens an account of its own) unless started with --strict-keys, so "a well-formed unknown key
// gets 401" cannot hold there. The suite learns that from what the mock announces, never from its
// behaviour: GET /__mock/about (the `mockAbout` operation of generated/mock-control.json) answers
// which keys it accepts. A deployment that accepts unknown keys without announcing it fails part
// 5.1 as before. One read, no key, nothing changed.
import { listOperations, type Json } from './description.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { createRequester } from '../src/request/index.js';

export interface Announcement {
  /** `any`: every well-formed key opens an account; `strict`: only issued or seeded keys. */
  keys: string;
  /** The request that read it, for the report. */
  request: string;
}

const OPERATION = 'mockAbout';

function aboutOperation(control: Json) {
  return listOperations(control).find((o) => o.operationId === OPERATION);
}

/** What the deployment announces about itself, or undefined when it announces nothing valid. */
export async function readAnnouncement(baseUrl: string, timeoutMs: number, control: Json = readGeneratedJson('mock-control.json')): Promise<Announcement | undefined> {
  const op = aboutOperation(control);
  if (!op) return undefined;
  let body: unknown;
  try {
    const answer = await createRequester({ baseUrl, timeoutMs }).send({ method: op.method, path: op.path });
    if (answer.status !== 200) return undefined;
    body = answer.json;
  } catch {
    return undefined;
  }
  // Only an answer the control description's own schema accepts counts as the announcement.
  const pointer = `${op.pointer}/responses/200/content/application~1json/schema`;
  if (!contractValidator(control).accepts(pointer, body)) return undefined;
  return { keys: String((body as { keys: unknown }).keys), request: `${op.method.toUpperCase()} ${op.path}` };
}

/** The one line the report gives the unknown-key checks of part 5.1 on an announcing mock that accepts any key. */
export function anyKeyNotApplicable(baseUrl: string, announcement: Announcement): string {
  return (
    `${baseUrl} announces itself as the numbers-api mock accepting any well-formed key (${announcement.request}), ` +
    'so the unknown-key 401 checks of part 5.1 do not apply to it; start the mock with --strict-keys to run them.'
  );
}
