// The validating proxy (`numbers-api proxy`): a frontend points at it instead of a deployment;
// every request goes on to the deployment unchanged and every answer comes back unchanged, both
// judged against the contract as they flow by the package's one validator
// (src/contract/contract-validator.ts). What it finds are verdicts, rendered at the edge: one log
// line per exchange and one per verdict (where, the rule, where it lives in the contract), and the
// `sl-violations` header in Prism's words (src/contract/prism-wording.ts), as Prism's own proxy
// reported it. With `errors`, a request that breaks the contract is answered the documented 400
// without reaching the deployment, and an answer that breaks it a 502, both in the `Error` shape.
//
// It trusts nothing it is sent: the deployment is asked through the guard (proxy-guard.ts), so a
// redirect comes back unfollowed (the key goes nowhere but the configured origin), an answer past
// the cap is a 502 rather than read whole, and a JSON answer that does not parse passes on as text
// with its verdict instead of becoming a 500.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { contractValidator, type ContractValidator } from '../src/contract/contract-validator.js';
import { dict } from '../src/contract/dict.js';
import { operationMatcher, type JsonObject } from '../src/contract/operations.js';
import { slViolationsHeader } from '../src/contract/prism-wording.js';
import { describeVerdict, ruleVerdict, type Verdict } from '../src/contract/verdict.js';
import { browserHeaders, preflightAnswer } from '../src/mock/browsers.js';
import { forwardedHeaders } from '../src/mock/forwarded-headers.js';
import { readableFieldErrors } from '../src/simulator/field-errors.js';
import { isJsonType, MAX_BODY_BYTES, readBody } from '../src/serve/request-body.js';
import type { SimRequest } from '../src/simulator/types.js';
import { MAX_UPSTREAM_BYTES, startProxyGuard } from './proxy-guard.js';

export interface ValidatingProxyOptions {
  /** The deployment's base URL (its origin and path prefix). */
  upstream: string;
  host: string;
  port: number;
  /** Answer an exchange that breaks the contract with an error instead of passing it on. */
  errors: boolean;
  /** The contract (generated/openapi.json, parsed). */
  document: JsonObject;
  /** One line per exchange, and one per verdict. */
  log: (line: string) => void;
}

export interface ValidatingProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

function readWhole(stream: NodeJS.ReadableStream, limit: number): Promise<{ bytes: Buffer; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    stream.on('end', () => resolve({ bytes: Buffer.concat(chunks), tooLarge: size > limit }));
    stream.on('error', reject);
  });
}

/** The verdicts of the answer: the validator's, and a JSON answer that is not JSON. */
function answerVerdicts(validator: ContractValidator, operationId: string, status: number, headers: Record<string, string>, bytes: Buffer): Verdict[] {
  const type = headers['content-type'];
  let body: unknown;
  if (bytes.length > 0 && isJsonType(type)) {
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      return [ruleVerdict({ of: 'response', in: 'body', keyword: 'bodyNotJson', params: { reason: (error as Error).message } })];
    }
  }
  return validator.response(operationId, { status, headers, body });
}

export async function startValidatingProxy(options: ValidatingProxyOptions): Promise<ValidatingProxy> {
  const validator = contractValidator(options.document);
  const match = operationMatcher(options.document);
  const guard = await startProxyGuard(new URL(options.upstream));
  const methodsAt = (pathname: string): string[] => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => match(method, pathname));

  const server = http.createServer((req, res) => {
    const started = Date.now();
    const url = req.url ?? '/';
    const pathname = url.split('?', 1)[0]!;
    const method = (req.method ?? 'GET').toUpperCase();
    const preflight = preflightAnswer(method, req.headers, methodsAt, pathname);
    if (preflight) {
      res.writeHead(preflight.status, preflight.headers);
      res.end();
      return;
    }
    const verdicts: Verdict[] = [];
    const finish = (status: number, headers: Record<string, string>, body: Buffer | string, note = ''): void => {
      const all: Record<string, string> = { ...browserHeaders(req.headers), ...headers, 'content-length': String(Buffer.byteLength(body)) };
      if (verdicts.length > 0) all['sl-violations'] = slViolationsHeader(verdicts);
      res.writeHead(status, all);
      res.end(method === 'HEAD' ? undefined : body);
      options.log(`${new Date().toISOString().slice(11, 19)} ${method} ${url} ${status} ${Date.now() - started} ms${note}`);
      for (const verdict of verdicts) options.log(`  ${verdict.severity === 'inferred' ? 'advisory' : 'violation'}: ${verdict.of} ${describeVerdict(verdict)}`);
    };
    const refuse = (status: number, error: string): void => finish(status, { 'content-type': 'application/json' }, JSON.stringify({ error }));

    readWhole(req, MAX_BODY_BYTES).then(async ({ bytes, tooLarge }) => {
      const route = match(method, pathname);
      const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
      const request: SimRequest = { method, pathname, query: new URLSearchParams(query), headers: dict(), body: undefined, violations: [] };
      for (const [name, value] of Object.entries(req.headers)) request.headers[name] = Array.isArray(value) ? value.join(', ') : value;
      await readBody(request, bytes, request.headers['content-type'], tooLarge);
      // A body that could not be read is already a verdict; the validator judges the rest.
      if (route) verdicts.push(...(request.violations.length > 0 ? request.violations : validator.request(route.operationId, request)));
      if (options.errors && verdicts.length > 0) {
        const answer = readableFieldErrors(request, verdicts);
        return finish(answer.status, { 'content-type': 'application/json' }, JSON.stringify(answer.body), ' (not sent: the request breaks the contract)');
      }
      // Through the guard: the configured origin only, never a redirect followed, the answer capped.
      const sent = http.request(`${guard.url}${url}`, { method, headers: forwardedHeaders(req.headers) }, (answer) => {
        readWhole(answer, MAX_UPSTREAM_BYTES).then(({ bytes: answerBytes, tooLarge: answerTooLarge }) => {
          const status = answer.statusCode ?? 502;
          if (answerTooLarge) return refuse(502, `The deployment's answer is larger than the ${MAX_UPSTREAM_BYTES} bytes the proxy passes on.`);
          const headers = forwardedHeaders(answer.headers);
          const found = route ? answerVerdicts(validator, route.operationId, status, headers, answerBytes) : [];
          verdicts.push(...found);
          if (options.errors && found.some((verdict) => verdict.severity === 'documented')) {
            return refuse(502, `The deployment's ${status} answer breaks the contract: ${found.map(describeVerdict).join('; ')}`);
          }
          finish(status, headers, answerBytes, route ? '' : ' (no operation of the contract)');
        }, () => refuse(502, 'The deployment stopped answering midway.'));
      });
      sent.on('error', (error) => refuse(502, `The deployment did not answer: ${error.message}`));
      sent.end(bytes.length > 0 ? bytes : undefined);
    }, () => refuse(400, 'The request could not be read.'));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    close: () =>
      Promise.all([
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
        guard.close(),
      ]).then(() => undefined),
  };
}
