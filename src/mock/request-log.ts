// The request log of the HTTP door: one quiet line per finished request, `HH:MM:SS METHOD /url
// status ms`, and one per verdict its answer reports (the validating proxy's, a mock's answer check).
import type http from 'node:http';
import { describeVerdict, type Verdict } from '../contract/verdict.js';

/** The log line of a finished request started at `started` (process.hrtime.bigint()); `note` is appended. */
export function requestLogLine(req: http.IncomingMessage, status: number, started: bigint, note = ''): string {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return `${new Date().toISOString().slice(11, 19)} ${req.method ?? 'GET'} ${req.url ?? '/'} ${status} ${ms.toFixed(1)} ms${note}`;
}

/** The line of a verdict under its request's: where, the rule, what came, where the rule lives in the contract. */
export function verdictLogLine(verdict: Verdict): string {
  return `  ${verdict.severity === 'inferred' ? 'advisory' : 'violation'}: ${verdict.of} ${describeVerdict(verdict)}`;
}
