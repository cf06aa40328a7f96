// Tables for the errors guide, generated from the contract: the `ErrorCode` catalog (status,
// condition, what a client should do: `x-status`, `x-client-action`) with the operations whose
// examples return each code, and the deterministic message-send errors of part 7 (the named 400
// examples of `sendMessage`).
import { listOperations, referenceRoute } from './contract.mjs';
import { escapeHtml, markdownInline } from './html.mjs';

/** The catalog entries: `{ code, status, description, action }`, plus the open "other" branch. */
export function errorCodeCatalog(openapi) {
  const schema = openapi.components.schemas.ErrorCode;
  const entries = (schema.anyOf ?? schema.oneOf ?? []).filter((e) => 'const' in e);
  for (const e of entries) {
    if (e['x-status'] === undefined || !e['x-client-action']) throw new Error(`ErrorCode ${e.const} lacks x-status or x-client-action`);
  }
  return {
    codes: entries.map((e) => ({ code: e.const, status: e['x-status'], description: e.description, action: e['x-client-action'] })),
    other: (schema.anyOf ?? schema.oneOf ?? []).find((e) => !('const' in e)),
  };
}

/** For each code, the operations (and statuses) whose error examples carry it. */
function operationsByCode(dereferenced) {
  const byCode = new Map();
  for (const op of listOperations(dereferenced)) {
    for (const [status, response] of Object.entries(op.operation.responses ?? {})) {
      for (const media of Object.values(response.content ?? {})) {
        for (const example of Object.values(media.examples ?? {})) {
          const code = example?.value?.code;
          if (typeof code !== 'string') continue;
          const list = byCode.get(code) ?? [];
          if (!list.some((x) => x.op === op && x.status === status)) list.push({ op, status });
          byCode.set(code, list);
        }
      }
    }
  }
  return byCode;
}

export function errorCodesTable(openapi, dereferenced) {
  const { codes, other } = errorCodeCatalog(openapi);
  const byCode = operationsByCode(dereferenced);
  const rows = codes.map(({ code, status, description, action }) => {
    const ops = (byCode.get(code) ?? [])
      .map(({ op, status: s }) => `<a href="${escapeHtml(referenceRoute(op))}"><code>${escapeHtml(`${op.method.toUpperCase()} ${op.path}`)}</code></a> (${escapeHtml(s)})`)
      .join('<br>');
    return `<tr id="code-${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td>${escapeHtml(status)}</td><td>${markdownInline(description)}</td><td>${markdownInline(action)}</td><td>${ops || '<span class="muted">—</span>'}</td></tr>`;
  });
  const otherRow = other
    ? `<tr id="code-other"><td><em>any other</em></td><td>any</td><td>${markdownInline(other.description ?? '')}</td><td>Treat it by its HTTP status.</td><td></td></tr>`
    : '';
  return `<table class="error-codes"><thead><tr><th>Code</th><th>Status</th><th>When</th><th>What a client should do</th><th>Examples in the reference</th></tr></thead><tbody>
${rows.join('\n')}
${otherRow}
</tbody></table>`;
}

export function messageSendErrorsTable(dereferenced) {
  const op = listOperations(dereferenced).find((o) => o.operationId === 'sendMessage');
  const examples = op?.operation.responses?.['400']?.content?.['application/json']?.examples;
  if (!examples) throw new Error('sendMessage has no named 400 examples to list');
  const rows = Object.entries(examples).map(([name, example]) => {
    const error = example.value?.error;
    const message = typeof error === 'string' ? escapeHtml(error) : `<code>${escapeHtml(JSON.stringify(error))}</code>`;
    return `<tr><td>${message}</td><td>${markdownInline(example.summary ?? '')}</td><td><code>${escapeHtml(name)}</code></td></tr>`;
  });
  return `<table class="send-errors"><thead><tr><th><code>error</code></th><th>Cause</th><th>Example name</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="muted">From the named 400 examples of <a href="${escapeHtml(referenceRoute(op))}"><code>POST ${escapeHtml(op.path)}</code></a>; the mock answers each with <code>Prefer: example=&lt;name&gt;</code>.</p>`;
}
