// The mock's request log: one quiet line per finished request, `HH:MM:SS METHOD /url status ms`.
import type http from 'node:http';

/** The log line of a finished request started at `started` (process.hrtime.bigint()); `note` is appended. */
export function requestLogLine(req: http.IncomingMessage, status: number, started: bigint, note = ''): string {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return `${new Date().toISOString().slice(11, 19)} ${req.method ?? 'GET'} ${req.url ?? '/'} ${status} ${ms.toFixed(1)} ms${note}`;
}
