// House rule (part 7; STYLE.md "one error schema"): every 4xx and 5xx response body is the one
// shared error shape. A response passes when it is a `$ref` to `#/components/responses/<Name>`
// whose JSON body is a `$ref` to the Error schema, or an inline response whose body is.
//
// Given (unresolved document): an operation's `responses` object.
// Options: { schemaRef: '#/components/schemas/Error' }
function resolveLocal(document, ref) {
  let node = document;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(segment in node)) return undefined;
    node = node[segment];
  }
  return node;
}

export default function errorResponseUsesErrorSchema(responses, options, context) {
  if (responses === null || typeof responses !== 'object') return;
  const schemaRef = options?.schemaRef ?? '#/components/schemas/Error';
  const document = context.document.data;
  const results = [];
  for (const [status, declared] of Object.entries(responses)) {
    if (!/^[45]/.test(status)) continue;
    const path = [...context.path, status];
    let response = declared;
    const seen = new Set();
    while (response && typeof response.$ref === 'string' && !seen.has(response.$ref)) {
      seen.add(response.$ref);
      response = response.$ref.startsWith('#/components/responses/') ? resolveLocal(document, response.$ref) : undefined;
    }
    if (!response || typeof response !== 'object' || typeof response.$ref === 'string') {
      results.push({
        message: `The ${status} response must be a response object or a $ref to one under #/components/responses/.`,
        path,
      });
      continue;
    }
    const content = response.content;
    if (!content || typeof content !== 'object' || Object.keys(content).length === 0) {
      results.push({ message: `The ${status} response has no body; every error body carries \`error\` (part 7), described by ${schemaRef}.`, path });
      continue;
    }
    for (const [mediaType, media] of Object.entries(content)) {
      if (media?.schema?.$ref !== schemaRef) {
        results.push({
          message: `The ${status} response body (${mediaType}) must be the shared error schema: \`schema: {$ref: '${schemaRef}'}\` (part 7).`,
          path,
        });
      }
    }
  }
  return results;
}
