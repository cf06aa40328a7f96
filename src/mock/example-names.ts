// The example names a frontend can select on the mock with `Prefer: example=<name>`, per
// operation and status, read from the bundled description (never written by hand).
//
// How the mock picks (Prism 5.14's negotiator, and the example server's one adjustment): without `code=`,
// the operation's default success status is used (the lowest documented 2xx, except 201 where a
// 200 replay is documented beside it), so `Prefer: example=<name>` selects among its examples; any
// other example needs its status too, `Prefer: code=403, example=whatsappLimited`. Without
// `example=`, the first example of the chosen response is served.
import { defaultStatus, lowestSuccessStatus, listOperations, resolveRef, type JsonObject } from '../contract/operations.js';

export interface ResponseExamples {
  /** The status as written in the description, e.g. `201`. */
  status: string;
  /** The media type that holds the examples. */
  mediaType: string;
  /** Example names in document order; the first is what the mock serves by default. */
  names: string[];
}

export interface OperationExamples {
  operationId: string | undefined;
  method: string;
  path: string;
  summary: string | undefined;
  /** The status the mock serves when no `code=` is asked for (see `defaultStatus` in src/contract/operations.ts). */
  defaultStatus: string | undefined;
  responses: ResponseExamples[];
}

/** Every operation, in document order, with the example names of each documented response. */
export function listExampleNames(document: JsonObject): OperationExamples[] {
  return listOperations(document).map(({ method, path, operation }) => {
    const responses: ResponseExamples[] = [];
    for (const [status, raw] of Object.entries<JsonObject>(operation.responses ?? {})) {
      for (const [mediaType, media] of Object.entries<JsonObject>(resolveRef(document, raw)?.content ?? {})) {
        // Only named `examples` can be selected; a lone `example` is served but has no name.
        const names = media.examples && typeof media.examples === 'object' ? Object.keys(media.examples) : [];
        if (names.length > 0) responses.push({ status, mediaType, names });
      }
    }
    return {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      summary: operation.summary,
      defaultStatus: lowestSuccessStatus(operation) === undefined ? undefined : String(defaultStatus(operation)),
      responses,
    };
  });
}

/** The `Prefer` header that selects one example: `example=x` for the default status, else `code=N, example=x`. */
export function preferHeaderFor(operation: OperationExamples, status: string, name: string): string {
  return status === operation.defaultStatus ? `example=${name}` : `code=${status}, example=${name}`;
}

/** Plain text, one operation per block, for the terminal (`numbers-api mock --list-examples`). */
export function formatExampleNamesText(operations: OperationExamples[]): string {
  const lines: string[] = [];
  for (const operation of operations) {
    lines.push(`${operation.method} ${operation.path}${operation.operationId ? `  (${operation.operationId})` : ''}`);
    for (const response of operation.responses) {
      lines.push(`  ${response.status}${response.status === operation.defaultStatus ? ' (default)' : ''}: ${response.names.join(', ')}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** A Markdown table per operation (`numbers-api mock --list-examples --markdown`). */
export function formatExampleNamesMarkdown(operations: OperationExamples[]): string {
  const out: string[] = [
    'Send `Prefer: example=<name>` to get a success example, or `Prefer: code=<status>, example=<name>` for',
    'another status. Without `Prefer`, the mock answers the lowest 2xx status with its first example.',
    '',
  ];
  for (const operation of operations) {
    out.push(`#### \`${operation.method} ${operation.path}\`${operation.summary ? ` — ${operation.summary}` : ''}`, '');
    out.push('| Status | Example names (first is the default) | Prefer header of the first |', '| --- | --- | --- |');
    for (const response of operation.responses) {
      const names = response.names.map((name) => `\`${name}\``).join(', ');
      out.push(`| ${response.status} | ${names} | \`Prefer: ${preferHeaderFor(operation, response.status, response.names[0]!)}\` |`);
    }
    out.push('');
  }
  return out.join('\n');
}
