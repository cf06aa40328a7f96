// `--rerun <finding-id>`: sends the one request a finding of the last run is about again, with the
// key of this run (never one written anywhere), and judges the answer as the run did: the generic
// checks of every answer, and the status the finding expected. Reads the finding from the last
// run's report in --report-dir. A request that created or changed something (a send of the
// `writes` level) goes again only with --level writes; one sent with the key of an account the
// suite signed up on the mock cannot (that key was never kept).
import { readFileSync } from 'node:fs';
import { checkResponse } from './checks/response.js';
import { UsageError } from '../src/cli/usage-error.js';
import type { ConformanceConfig } from './config.js';
import { findOperation, listOperations, loadDescription } from './description.js';
import { ConformanceHttp, describeRequest } from './http.js';
import { reportFiles } from './reporters/files.js';
import type { ScenarioOutcome } from './findings.js';
import { groupFindings, type FindingGroup } from './reporters/finding-groups.js';
import { formatFinding, type ConformanceReport } from './reporters/report.js';
import { contractValidator } from '../src/contract/contract-validator.js';

function readReport(dir: string): ConformanceReport {
  const file = reportFiles(dir).json;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
  } catch {
    throw new UsageError(`--rerun reads the last run's report, and there is none at ${file}: run the suite first (or pass its --report-dir).`);
  }
}

/** What the finding expected of the status, when it said (a scenario's `expected: {status}`). */
function expectedStatus(group: FindingGroup): number | undefined {
  const expected = group.expected as { status?: unknown } | undefined;
  return typeof expected?.status === 'number' ? expected.status : undefined;
}

/** Sends the finding's request again; 0 when the finding no longer shows, 1 when it still does. */
export async function rerunFinding(config: ConformanceConfig, id: string, write: (line: string) => void): Promise<number> {
  const report = readReport(config.reportDir);
  const group = (report.findings ?? []).find((g) => g.id === id);
  if (!group) {
    const ids = (report.findings ?? []).map((g) => g.id);
    throw new UsageError(`No finding ${id} in ${reportFiles(config.reportDir).json}${ids.length ? `; its findings are ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', ...' : ''}` : ', which has no finding'}.`);
  }
  const sent = group.example.sent;
  if (!sent) throw new UsageError(`Finding ${id} has no request of its own to send again (it was concluded across requests): run its scenario again with -t "${group.operationId}".`);
  if (sent.auth === 'scratch') throw new UsageError(`Finding ${id} was sent with the key of an account the suite signed up on the mock, which is not kept: run its scenario again with -t "${group.operationId}" --level writes.`);
  if (sent.auth === 'second' && !config.secondKey) throw new UsageError(`Finding ${id} was sent with the second key: pass --second-key (or NUMBERS_API_SECOND_KEY) to send it again.`);
  if (group.example.acting && config.level !== 'writes') {
    throw new UsageError(`Finding ${id}'s request creates or changes something (a send of --level writes): pass --level writes to send it again.`);
  }
  const document = loadDescription(config.descriptionPath);
  const op = findOperation(listOperations(document), group.operationId);
  if (!op) throw new UsageError(`The description has no operation ${group.operationId} any more.`);
  const http = new ConformanceHttp(config);
  const headers = Object.fromEntries(Object.entries(sent.headers ?? {}).filter(([name]) => !['accept', 'content-type'].includes(name.toLowerCase())));
  // The path as it was sent: its ids and query are the finding's own.
  const ex = await http.send({ ...op, path: sent.target }, { auth: sent.auth, ...(sent.body !== undefined ? { body: sent.body } : {}), headers, expect429: true });
  write(`Finding ${id}: ${group.title}`);
  write(`Sent again: ${describeRequest(ex)}`);
  write(`Answer: ${ex.status}${ex.headers['content-type'] ? ` ${ex.headers['content-type']}` : ''}${ex.bodyText ? `\n${ex.bodyText.length > 800 ? `${ex.bodyText.slice(0, 800)}…` : ex.bodyText}` : ''}`);
  const findings = checkResponse(document, contractValidator(document), op, ex, config.apiKey).filter((f) => f.verdict !== 'pass');
  // Grouped as the run grouped them: the same rule broken at the same place has the same finding id.
  const outcome: ScenarioOutcome = { scenarioId: `rerun/${id}`, operationId: op.operationId, title: `--rerun ${id}`, check: group.check, level: group.example.level ?? 'contract', verdict: 'pass', findings, exchanges: [], notes: [], sends: [] };
  const regrouped = groupFindings(document, [outcome], config.baseUrl);
  for (const again of regrouped) for (const line of formatFinding(again).filter((l) => !/^ {4}(curl |rerun: )/.test(l))) write(line);
  const status = expectedStatus(group);
  const still = status !== undefined ? ex.status !== status : regrouped.some((g) => g.id === id);
  write(still ? `Still there: ${status !== undefined ? `${ex.status}, where ${status} was expected` : `${group.check} still finds it`}.` : `Gone: ${status !== undefined ? `${ex.status}, as expected` : `${group.check} no longer finds it`}.`);
  return still ? 1 : 0;
}
