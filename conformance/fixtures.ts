// Data of the deployment the suite needs to build real requests (a number id to read its 10DLC
// state, an invoice id from the billing status). Discovered with plain reads, once per run, and
// not judged here (the read scenarios judge those operations).
import { findOperation, type Operation } from './description.js';
import type { ConformanceHttp } from './http.js';
import { listRecords, valuesNamed } from './records.js';

export interface NumberFixture {
  id: string;
  number?: string;
  maxCallDurationSeconds?: number | null;
  record: Record<string, unknown>;
}

export class Fixtures {
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(private readonly http: ConformanceHttp, private readonly operations: Operation[]) {}

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let value = this.memo.get(key) as Promise<T> | undefined;
    if (!value) {
      value = load().catch(() => undefined as T);
      this.memo.set(key, value);
    }
    return value;
  }

  private async read(operationId: string): Promise<unknown> {
    const op = findOperation(this.operations, operationId);
    if (!op) return undefined;
    const ex = await this.http.send(op, {});
    return ex.status >= 200 && ex.status < 300 ? ex.body : undefined;
  }

  /** The account's numbers (listNumbers). */
  numbers(): Promise<NumberFixture[]> {
    return this.once('numbers', async () => {
      const found = listRecords(await this.read('listNumbers'));
      return (found?.records ?? [])
        .filter((r) => typeof r.id === 'string')
        .map((r) => ({
          id: r.id as string,
          number: typeof r.number === 'string' ? r.number : undefined,
          maxCallDurationSeconds: r.maxCallDurationSeconds as number | null | undefined,
          record: r,
        }));
    });
  }

  async firstNumber(): Promise<NumberFixture | undefined> {
    return (await this.numbers())[0];
  }

  /** An invoice id from the billing status (getBilling), anywhere in it. */
  invoiceId(): Promise<string | undefined> {
    return this.once('invoice', async () => valuesNamed(await this.read('getBilling'), 'invoiceId')[0]);
  }
}
