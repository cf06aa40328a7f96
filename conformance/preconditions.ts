// What the `writes` level needs of the account before it creates anything: a line to send from,
// and credit on it (part 3: a pay-as-you-go number is refused with 402 while the wallet is at or
// below zero; FIXED numbers never are). An account that lacks one is not a finding about the
// deployment: the run stops with exit 2 and one line saying what the account needs. Reads only.
// Where the reads cannot tell (the balance's field name is inferred), the flows find out on their
// first send instead: a 402 there is the same precondition, not a failure (scenario.ts).
import type { ConformanceConfig } from './config.js';
import { findOperation, listOperations, type Json } from './description.js';
import { TargetError } from './probe.js';
import { ConformanceHttp } from './http.js';
import { listRecords } from './records.js';
import { NO_LINE } from './scenarios/write-helpers.js';

/** The account cannot run the `writes` level: exit 2, the message says what it needs. */
export class PreconditionError extends TargetError {}

/** `--level writes: <what the account needs>`, the one line a stopped run prints. */
export function preconditionLine(need: string): string {
  return `--level writes cannot run on this account: ${need}`;
}

export async function checkWritesPreconditions(document: Json, config: ConformanceConfig): Promise<void> {
  const operations = listOperations(document);
  const http = new ConformanceHttp({ ...config, concurrency: 2, timeoutMs: Math.min(config.timeoutMs, 15_000) });
  const read = async (operationId: string): Promise<unknown> => {
    const op = findOperation(operations, operationId);
    if (!op) return undefined;
    try {
      const ex = await http.send(op, {});
      return ex.status >= 200 && ex.status < 300 ? (ex.body ?? null) : undefined;
    } catch {
      return undefined; // no answer or rate limited: the suite judges that operation itself
    }
  };
  const [numbersBody, billing] = await Promise.all([read('listNumbers'), read('getBilling')]);
  if (numbersBody === undefined) return;
  const lines = (listRecords(numbersBody)?.records ?? []).filter((r) => typeof r.id === 'string');
  if (lines.length === 0) throw new PreconditionError(preconditionLine(NO_LINE));
  // The line the flows send from is the first one (write-helpers.ts, senderNumber).
  const line = lines[0]!;
  const balance = (billing as { balance?: unknown } | undefined)?.balance;
  if (line.billingMode !== 'FIXED' && typeof balance === 'number' && balance <= 0) {
    throw new PreconditionError(
      preconditionLine(
        `the account has no credit: GET /api/v1/billing shows a wallet balance of ${balance}, and its line ${String(line.number ?? line.id)} is ` +
          `${line.billingMode === 'PAYG' ? 'pay-as-you-go' : 'not FIXED'} (part 3: refused with 402 at or below zero). ` +
          'Top up its wallet (on the numbers-api mock: PUT /__mock/wallet {"balance": 50}), then run again.',
      ),
    );
  }
}
