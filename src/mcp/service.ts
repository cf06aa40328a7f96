// The MCP server's tools, put together once at start from the bundled contract, and how a call
// to one is carried out: the operations of the service (operation-tools.ts), on the mock its
// control surface too, the workflows (workflow-tools.ts), a wait for the next event, or, with
// `compact`, three tools that find, describe and call all of those. Every call crosses the
// policy (policy.ts) before anything is sent, goes out as the package's one outgoing request
// (src/request/: the key to the target's origin only, no redirects followed, answers read up to a
// bound), and every result and log line crosses its redactor. Transport-free: server.ts wires it
// to the SDK.
import { createHmac, randomBytes } from 'node:crypto';
import { loadOpenApi, readGeneratedJson, resolveRef, type JsonObject } from '../contract/generated-files.js';
import { createRequester, NoAnswer, paramsOf } from '../request/index.js';
import type { Redactor } from '../request/redact.js';
import { WorkflowRunner, type Answer, type StepRequest, type WorkflowRun } from '../workflows/arazzo-runner.js';
import { errorLines, validatorOf } from './json-schema.js';
import { operationTools, type OperationTool, type ToolDefinition } from './operation-tools.js';
import { refusalText, verdict, type PolicyOptions } from './policy.js';
import type { Target } from './target.js';
import { schemaCollector, withDefs } from './tool-schema.js';
import { HIDDEN_INPUTS, workflowTools, type WorkflowTool } from './workflow-tools.js';

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface EventTool {
  kind: 'event';
  operation: OperationTool;
  definition: ToolDefinition;
}

type Tool = OperationTool | WorkflowTool | EventTool;

export interface ServiceOptions {
  target: Pick<Target, 'baseUrl' | 'apiKey' | 'isMock' | 'controlToken' | 'origin'>;
  /** `--compact`: three tools (find, describe, call) instead of one per operation. */
  compact?: boolean;
  allowWrites?: boolean;
  /** `--allow <operationId>` (or a workflow id), repeated. */
  allow?: Iterable<string>;
  /** One line per tool call (stderr on stdio); redacted. */
  log?: (line: string) => void;
}

export interface McpService {
  /** The tools `tools/list` answers in this mode. */
  list(): ToolDefinition[];
  call(name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
  /** What the server tells a client at initialization: the target and what it lets through. */
  instructions: string;
  redact: Redactor;
}

export const NEXT_EVENT_TOOL = 'next_event';
export const COMPACT_TOOLS = { find: 'find_operations', describe: 'describe_operation', call: 'call_operation' } as const;

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
/** JSON with every object's keys in order: the same arguments, however written, are one string. */
const canonical = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
const errorResult = (message: string): ToolResult => ({ content: [{ type: 'text', text: message }], isError: true });
const dataResult = (value: Record<string, unknown>): ToolResult => ({ content: [{ type: 'text', text: text(value) }], structuredContent: value });

/** The tool that waits for the next event: `waitForEvent`'s own body as its input, a 408 as "no event". */
function nextEventTool(document: JsonObject, waitForEvent: OperationTool): EventTool {
  const collector = schemaCollector(document);
  const outputs = schemaCollector(document, { descriptions: false });
  const requestBody = resolveRef(document, document.paths?.[waitForEvent.path]?.[waitForEvent.method]?.requestBody);
  const input = collector.convert(resolveRef(document, requestBody?.content?.['application/json']?.schema));
  const event = outputs.convert({ $ref: '#/components/schemas/AnyEvent' });
  return {
    kind: 'event',
    operation: waitForEvent,
    definition: {
      name: NEXT_EVENT_TOOL,
      title: 'Wait for the next event',
      description:
        `Waits for the next event of the account that matches \`filters\` (such as {"type": "message.received"}), up to \`timeout\` seconds (1 to 60), ` +
        `with POST ${waitForEvent.path} (parts 4.5 and 6). Returns {"event": <the event>}, or {"event": null} when none arrived in time (the 408 part 6 expects). ` +
        'The stream is presence-based (part 6): start waiting before the event is due, or it may be gone.',
      inputSchema: withDefs({ type: 'object', properties: input.properties ?? {}, ...(input.required ? { required: input.required } : {}), additionalProperties: false }, collector),
      outputSchema: withDefs({ type: 'object', properties: { event: { anyOf: [event, { type: 'null' }] } }, required: ['event'] }, outputs),
      annotations: { title: 'Wait for the next event', readOnlyHint: true },
    },
  };
}

export function createMcpService(options: ServiceOptions): McpService {
  const { target } = options;
  const policy: PolicyOptions = { allowWrites: options.allowWrites ?? false, allow: new Set(options.allow ?? []), targetIsMock: target.isMock };
  const requests = createRequester({ baseUrl: target.baseUrl, apiKey: target.apiKey, controlToken: target.controlToken });
  const redact = requests.redact;
  const log = (line: string): void => options.log?.(redact(line));
  const openapi = loadOpenApi();
  const control = readGeneratedJson('mock-control.json');
  const arazzo = readGeneratedJson('workflows.arazzo.json');

  const serviceOperations = operationTools(openapi, 'numbersApi');
  const controlOperations = operationTools(control, 'mockControl');
  const bySource = { numbersApi: new Map(serviceOperations.map((t) => [t.operationId, t])), mockControl: new Map(controlOperations.map((t) => [t.operationId, t])) };
  const flows = workflowTools(arazzo, target.isMock).filter((flow) => target.isMock || flow.level !== 'never' || policy.allow.has(flow.workflowId));
  const events = nextEventTool(openapi, bySource.numbersApi.get('waitForEvent')!);
  // The mock's control surface is a tool only where it exists.
  const tools: Tool[] = [...serviceOperations, ...(target.isMock ? controlOperations : []), events, ...flows];
  const byName = new Map<string, Tool>(tools.map((tool) => [tool.definition.name, tool]));

  /** Why a tool is refused here, and the options a restart needs for it to run (none: it cannot be allowed here). */
  type Refusal = { text: string; allowWith?: string | undefined };
  const operationRefusal = (operation: OperationTool, prefix = ''): Refusal | undefined => {
    const v = verdict(operation, policy);
    return v.allowed ? undefined : { text: `${prefix}${refusalText(operation, v, policy)}`, allowWith: v.rule === 'mock-only' ? undefined : v.allowWith };
  };

  /** Why a tool is refused here, before anything is sent, or undefined. */
  const refusalOf = (tool: Tool): Refusal | undefined => {
    if (tool.kind === 'operation') return operationRefusal(tool);
    if (tool.kind === 'event') return undefined;
    if (!target.isMock && tool.level === 'never' && !policy.allow.has(tool.workflowId)) {
      const allowWith = `--allow-writes --allow ${tool.workflowId}`;
      return { text: `${tool.definition.name} is never run against a deployment (x-conformance never: ${tool.levelReason}); nothing was sent. To allow it, restart with ${allowWith}.`, allowWith };
    }
    for (const step of tool.operations) {
      const operation = bySource[step.source as 'numbersApi' | 'mockControl']?.get(step.operationId);
      if (!operation) return { text: `${tool.definition.name} names ${step.operationId}, which the contract does not have; nothing was sent.` };
      if (operation.effects.mockOnly && !target.isMock) continue; // left out on a deployment
      const refused = operationRefusal(operation, `${tool.definition.name} would send ${step.operationId}, which is refused: `);
      if (refused) return refused;
    }
    return undefined;
  };

  /** The tool's definition as listed here: a tool this server refuses says so, and how to allow it (the call says why in full). */
  const listed = (tool: Tool): ToolDefinition => {
    const refused = refusalOf(tool);
    if (!refused) return tool.definition;
    return { ...tool.definition, description: `${tool.definition.description}\n\nRefused on this server${refused.allowWith ? ` unless it is restarted with ${refused.allowWith}` : ''}.` };
  };

  // Part 7.2: what takes an idempotency key always gets one, the caller's or one made from the
  // canonical arguments, this server's session and its target, so a retry replays, never repeats.
  const session = randomBytes(32);
  const keyed = (operation: OperationTool, values: JsonObject, body: unknown): { values: JsonObject; key?: string } => {
    const header = operation.effects.idempotencyKey;
    const key = header && (values[header] ? String(values[header]) : createHmac('sha256', session).update(canonical([target.baseUrl.href, target.apiKey, operation.operationId, values, body ?? null])).digest('base64url').slice(0, 32));
    return header && key ? { values: { ...values, [header]: key }, key } : { values };
  };

  /** A tool's request: the target's key unless a workflow step names its own Authorization (a string, or null for none). */
  const sendOperation = (operation: OperationTool, values: Record<string, unknown>, body: unknown, authorization: string | null | undefined, signal?: AbortSignal): Promise<Answer> =>
    requests.send({ method: operation.method, path: operation.path, params: paramsOf(operation.parameters, values, authorization), body, signal });

  /** Arguments of an operation tool: an object of its parameters and `body`, path parameters given. */
  const envelopeProblems = (operation: OperationTool, args: JsonObject): string[] => {
    const known = new Set([...operation.parameters.map((p) => p.name), ...(operation.body ? ['body'] : [])]);
    const problems = Object.keys(args)
      .filter((name) => !known.has(name))
      .map((name) => `unknown argument "${name}" (this tool takes ${[...known].join(', ') || 'none'})`);
    for (const parameter of operation.parameters) {
      const value = args[parameter.name];
      if (parameter.required && value === undefined) problems.push(`missing the ${parameter.in} parameter "${parameter.name}"`);
      if (value !== undefined && parameter.in !== 'query' && typeof value === 'object') problems.push(`"${parameter.name}" is one value (a string), not an object`);
    }
    if (operation.body?.required && args.body === undefined) problems.push('missing "body"');
    return problems;
  };

  /** An operation tool's call: refused (a tool error), or its answer as data and as the tool result. */
  const runOperation = async (operation: OperationTool, args: JsonObject, signal?: AbortSignal): Promise<{ result: ToolResult; status?: number }> => {
    const problems = envelopeProblems(operation, args);
    if (problems.length > 0) return { result: errorResult(`${operation.operationId}: ${problems.join('; ')}. Nothing was sent.`) };
    const refused = refusalOf(operation);
    if (refused) return { result: errorResult(refused.text) };
    const { body, ...given } = args;
    const { values, key } = keyed(operation, given, body);
    const answer = await sendOperation(operation, values, body, undefined, signal);
    const documented = operation.headersByStatus[String(answer.status)] ?? [];
    const headers = Object.fromEntries(documented.filter((h) => answer.headers[h] !== undefined).map((h) => [h, answer.headers[h]!]));
    const extra = { ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(key !== undefined ? { idempotencyKey: key } : {}) };
    if (answer.status >= 200 && answer.status < 300) {
      const structured = redact({ status: answer.status, ...(answer.body !== undefined ? { body: answer.body } : {}), ...extra });
      return { status: answer.status, result: dataResult(structured) };
    }
    // Part 7: the status first, then `error` (and `code`); the body is the contract's Error.
    const error = answer.body !== null && typeof answer.body === 'object' && !Array.isArray(answer.body) ? answer.body : { error: answer.body ?? `HTTP ${answer.status}` };
    return { status: answer.status, result: errorResult(text(redact({ status: answer.status, ...(error as object), ...extra }))) };
  };

  const stepCall = (signal?: AbortSignal) => async (request: StepRequest): Promise<Answer | { refused: string }> => {
    const operation = bySource[request.source as 'numbersApi' | 'mockControl']?.get(request.operationId);
    if (!operation) return { refused: `${request.operationId} is not an operation of the contract` };
    const refused = operationRefusal(operation);
    if (refused) return { refused: refused.text };
    const started = Date.now();
    const answer = await sendOperation(operation, keyed(operation, request.values, request.body).values, request.body, request.authorization, signal);
    log(`numbers-api mcp:   step ${operation.operationId} → ${answer.status} (${Date.now() - started} ms)`);
    return answer;
  };

  const callWorkflow = async (flow: WorkflowTool, args: JsonObject, signal?: AbortSignal): Promise<ToolResult> => {
    const validate = validatorOf(flow.definition.inputSchema);
    if (!validate(args)) return errorResult(`${flow.definition.name}: ${errorLines(validate.errors).join('; ')}. Nothing was sent.`);
    const refused = refusalOf(flow);
    if (refused) return errorResult(refused.text);
    const runner = new WorkflowRunner({
      arazzo,
      operations: bySource,
      call: stepCall(signal),
      isMock: target.isMock,
      hiddenInputs: Object.fromEntries([...HIDDEN_INPUTS].map((name) => [name, target.apiKey])),
      ...(signal ? { signal } : {}),
    });
    const run: WorkflowRun = redact(await runner.run(flow.workflowId, args));
    return { ...dataResult(run as unknown as Record<string, unknown>), ...(run.passed ? {} : { isError: true }) };
  };

  const callNextEvent = async (tool: EventTool, args: JsonObject, signal?: AbortSignal): Promise<ToolResult> => {
    const { result, status } = await runOperation(tool.operation, { body: args }, signal);
    // Part 6: 408 is the expected end of a wait with no event.
    if (result.isError && status !== 408) return result;
    return dataResult({ event: status === 408 ? null : ((result.structuredContent as { body?: unknown }).body ?? null) });
  };

  const callTool = async (tool: Tool, args: JsonObject, signal?: AbortSignal): Promise<ToolResult> => {
    if (tool.kind === 'operation') return (await runOperation(tool, args, signal)).result;
    if (tool.kind === 'workflow') return callWorkflow(tool, args, signal);
    return callNextEvent(tool, args, signal);
  };

  // --compact: three tools over the same catalogue.
  const compact: ToolDefinition[] = [
    {
      name: COMPACT_TOOLS.find,
      title: 'Find operations',
      description:
        `Finds the tools of the Numbers API (${openapi.info?.title}): its ${serviceOperations.length} operations, the contract's workflows, a wait for the next event${target.isMock ? ' and the mock\'s control surface' : ''}. ` +
        `Every word of \`query\` must appear in a tool's name, summary or path (all tools when empty). Then ${COMPACT_TOOLS.describe} gives one tool's input schema and ${COMPACT_TOOLS.call} calls it.`,
      inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'Words to look for, such as "send message" or "call".' } }, additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: {
          tools: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, kind: { enum: ['operation', 'workflow', 'event'] }, summary: { type: 'string' }, operation: { type: 'string' }, refused: { type: 'string' } },
              required: ['name', 'kind', 'summary'],
            },
          },
        },
        required: ['tools'],
      },
      annotations: { title: 'Find operations', readOnlyHint: true },
    },
    {
      name: COMPACT_TOOLS.describe,
      title: 'Describe an operation',
      description: `The whole description of one tool ${COMPACT_TOOLS.find} found: what it does (with the part of the interface specification it cites), its input schema (what ${COMPACT_TOOLS.call} takes as \`arguments\`) and its output schema.`,
      inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'The tool name, such as sendMessage.' } }, required: ['name'], additionalProperties: false },
      annotations: { title: 'Describe an operation', readOnlyHint: true },
    },
    {
      name: COMPACT_TOOLS.call,
      title: 'Call an operation',
      description: `Calls one tool by name with \`arguments\` as its input schema says (${COMPACT_TOOLS.describe}). The result is that tool's: the answer's status and body, or a tool error carrying the contract's Error (status, error, code).`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The tool name, such as sendMessage.' }, arguments: { type: 'object', description: 'The tool\'s arguments.' } },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { title: 'Call an operation', readOnlyHint: false, destructiveHint: true, openWorldHint: !target.isMock },
    },
  ];

  const find = (query: string): ToolResult => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = tools
      .map((tool) => {
        const operation = tool.kind === 'operation' ? `${tool.method.toUpperCase()} ${tool.path}` : tool.kind === 'event' ? `POST ${tool.operation.path}` : undefined;
        const refused = refusalOf(tool)?.text;
        return { name: tool.definition.name, kind: tool.kind, summary: tool.definition.title ?? tool.definition.name, ...(operation ? { operation } : {}), ...(refused ? { refused } : {}) };
      })
      .filter((entry) => words.every((word) => `${entry.name} ${entry.summary} ${entry.operation ?? ''}`.toLowerCase().includes(word)));
    return dataResult({ tools: found });
  };

  const targetLine = target.isMock
    ? `the numbers-api stateful mock (${target.origin === 'in-process mock' ? 'in this process, on an account of its own' : target.origin}): nothing reaches a person or costs money`
    : `a deployment at ${target.origin}: messages and calls reach real people and cost money`;
  const instructions = [
    `Tools of the Messaging and Voice Number Service, generated from its contract (numbers-api-contract). Target: ${targetLine}.`,
    policy.allowWrites ? 'Writes are allowed.' : 'Read-only: tools that change something are listed but refuse until the server is restarted with --allow-writes.',
    !target.isMock ? `Deleting the account, buying numbers, checkouts and 10DLC are refused unless named with --allow${policy.allow.size > 0 ? ` (allowed: ${[...policy.allow].join(', ')})` : ''}.` : '',
    'A failed call is a tool error carrying the contract\'s Error: branch on `status` first, then read `error` and `code` (part 7).',
    options.compact ? `Start with ${COMPACT_TOOLS.find}.` : '',
  ]
    .filter(Boolean)
    .join(' ');

  return {
    instructions,
    redact,
    list: () => (options.compact ? compact : tools.map(listed)),
    async call(name, rawArgs, signal) {
      const started = Date.now();
      const args = (rawArgs ?? {}) as JsonObject;
      let result: ToolResult;
      try {
        if (rawArgs !== undefined && (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs))) result = errorResult('The arguments must be an object.');
        else if (options.compact && name === COMPACT_TOOLS.find) result = find(String(args.query ?? ''));
        else if (options.compact && (name === COMPACT_TOOLS.describe || name === COMPACT_TOOLS.call)) {
          // Both name a tool: describe gives its whole definition, call calls it.
          const tool = typeof args.name === 'string' ? byName.get(args.name) : undefined;
          if (!tool) result = errorResult(`No tool "${String(args.name)}"; ${COMPACT_TOOLS.find} lists them.`);
          else result = name === COMPACT_TOOLS.describe ? { content: [{ type: 'text', text: text(listed(tool)) }] } : await callTool(tool, (args.arguments ?? {}) as JsonObject, signal);
        } else {
          const tool = options.compact ? undefined : byName.get(name);
          result = tool ? await callTool(tool, args, signal) : errorResult(`No tool "${name}" on this server${options.compact ? ` (compact mode: ${Object.values(COMPACT_TOOLS).join(', ')})` : ''}.`);
        }
      } catch (error) {
        const unknown = error instanceof NoAnswer && error.kind !== 'too-large' ? '; nothing is known of its outcome' : '';
        result = errorResult(error instanceof NoAnswer ? `${error.message}${unknown}` : `the call failed: ${(error as Error).message}`);
      }
      const called = name === COMPACT_TOOLS.call && options.compact ? `${name} ${String(args.name)}` : name;
      const outcome = result.isError ? `error: ${result.content[0]?.text.slice(0, 160)}` : 'ok';
      log(`numbers-api mcp: ${called} → ${outcome} (${Date.now() - started} ms)`);
      return redact(result);
    },
  };
}
