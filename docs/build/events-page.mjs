// The events reference page, generated from generated/asyncapi.json: every channel of part 6
// with its delivery guarantee, the envelope, each event type with its examples, and the local
// fan-out target rules. (Redoc also renders the whole AsyncAPI document, as asyncapi.html; this
// page puts what part 6 asks for on one page, in the site's layout.)
import { escapeHtml, jsonBlock, markdownBlock, markdownInline, slug } from './html.mjs';
import { fieldTable, objectFields, resolve } from './schema-table.mjs';

/** The documented event types, in the order of the `EventType` schema. */
export function documentedEventTypes(asyncapi) {
  const eventType = asyncapi.components.schemas.EventType;
  return (eventType.anyOf ?? eventType.oneOf ?? []).filter((v) => 'const' in v).map((v) => ({ type: v.const, description: v.description }));
}

/** The branches of a union, a branch that is itself a union (`AnyEvent`'s `KnownEvent`) replaced by its own. */
function leafBranches(doc, branches) {
  return branches.flatMap((branch) => {
    const schema = resolve(doc, branch);
    return Array.isArray(schema.oneOf) ? leafBranches(doc, schema.oneOf) : [branch];
  });
}

/** The schema of each documented type: the `AnyEvent` branch whose `type` is that const. */
function eventSchemas(asyncapi) {
  const byType = new Map();
  for (const branch of leafBranches(asyncapi, asyncapi.components.schemas.AnyEvent.oneOf)) {
    const { properties } = objectFields(asyncapi, branch);
    const type = resolve(asyncapi, properties.type ?? {});
    if ('const' in type) byType.set(type.const, { name: branch.$ref.split('/').pop(), schema: resolve(asyncapi, branch), data: properties.data });
  }
  return byType;
}

/** Every named example of every message, once each, with the messages that carry it. */
export function allEventExamples(asyncapi) {
  const examples = new Map();
  for (const [messageKey, message] of Object.entries(asyncapi.components.messages ?? {})) {
    for (const example of message.examples ?? []) {
      if (typeof example.payload?.type !== 'string') continue; // e.g. an events/wait request body
      const key = `${example.name}:${example.payload.id}`;
      const entry = examples.get(key) ?? { ...example, messages: [] };
      entry.messages.push(message.title ?? messageKey);
      examples.set(key, entry);
    }
  }
  return [...examples.values()];
}

function exampleHtml(example) {
  const headers = example.headers ? `<p class="muted">Headers</p>${jsonBlock(example.headers)}` : '';
  return `<details class="example" id="example-${escapeHtml(slug(example.name))}"><summary><strong>${escapeHtml(example.name)}</strong>${
    example.summary ? `: ${markdownInline(example.summary)}` : ''
  } <span class="muted">(${escapeHtml(example.messages.join(', '))})</span></summary>${headers}${jsonBlock(example.payload)}</details>`;
}

function inferredNote(node) {
  return node?.['x-inferred']
    ? `<p class="inferred-note"><span class="badge inferred">inferred</span> ${markdownInline(node['x-inferred-reason'] ?? '')}</p>`
    : '';
}

function serverHtml(asyncapi, ref) {
  const server = resolve(asyncapi, ref);
  const variables = Object.entries(server.variables ?? {})
    .map(
      ([name, v]) =>
        `<li><code>{${escapeHtml(name)}}</code>: ${v.enum ? `one of ${v.enum.map((e) => `<code>${escapeHtml(e)}</code>`).join(', ')}; ` : ''}default <code>${escapeHtml(v.default ?? '')}</code>. ${markdownInline(v.description ?? '')}</li>`,
    )
    .join('');
  return `<li><code>${escapeHtml(server.protocol)}://${escapeHtml(server.host)}</code> ${escapeHtml(server.title ?? '')}${
    server['x-inferred'] ? ' <span class="badge inferred">inferred</span>' : ''
  }${variables ? `<ul>${variables}</ul>` : ''}</li>`;
}

function channelHtml(asyncapi, key, channel) {
  const messages = Object.values(channel.messages ?? {}).map((m) => resolve(asyncapi, m));
  const headers = messages
    .filter((m) => m.headers)
    .map((m) => `<h4>Headers of a delivery</h4>${markdownBlock(resolve(asyncapi, m.headers).description)}${fieldTable(asyncapi, m.headers)}`)
    .join('');
  return `<section class="card channel" data-channel="${escapeHtml(key)}">
<h3 id="channel-${escapeHtml(slug(key))}">${escapeHtml(channel.title ?? key)}</h3>
<p class="guarantee"><strong>Delivery guarantee:</strong> ${escapeHtml(channel['x-delivery-guarantee'] ?? 'not stated')}</p>
<p><strong>Address:</strong> ${channel.address ? `<code>${escapeHtml(channel.address)}</code>` : '<span class="muted">none: left unset (the description says why)</span>'}</p>
${inferredNote(channel)}
${markdownBlock(channel.description)}
<p><strong>Servers</strong></p><ul>${(channel.servers ?? []).map((s) => serverHtml(asyncapi, s)).join('')}</ul>
<p><strong>Messages:</strong> ${messages.map((m) => escapeHtml(m.title ?? m.name)).join(', ')}</p>
${headers}
</section>`;
}

/** The events page: `{ title, body }` for the shared layout, and the types it shows. */
export function eventsPage(asyncapi) {
  const types = documentedEventTypes(asyncapi);
  const schemas = eventSchemas(asyncapi);
  const examples = allEventExamples(asyncapi);
  const documented = new Set(types.map((t) => t.type));
  const schemasComponent = asyncapi.components.schemas;

  const channels = Object.entries(asyncapi.channels).map(([key, channel]) => channelHtml(asyncapi, key, channel));
  const fanOutKey = Object.keys(asyncapi.channels).find((k) => /fan-?out/i.test(k));

  const typeSections = types.map(({ type, description }) => {
    const entry = schemas.get(type);
    if (!entry) throw new Error(`event type ${type} has no branch in AnyEvent`);
    const own = examples.filter((e) => e.payload.type === type);
    if (!own.length) throw new Error(`event type ${type} has no example in the AsyncAPI messages`);
    return `<section class="event-type" data-event-type="${escapeHtml(type)}">
<h3 id="event-${escapeHtml(slug(type))}"><code>${escapeHtml(type)}</code></h3>
<p>${markdownInline(description)}</p>
${markdownBlock(entry.schema.description)}
<h4><code>data</code> fields</h4>
${fieldTable(asyncapi, entry.data ?? { type: 'object' })}
<h4>Examples</h4>
${own.map(exampleHtml).join('\n')}
</section>`;
  });
  const otherExamples = examples.filter((e) => !documented.has(e.payload.type));

  const operations = Object.entries(asyncapi.operations ?? {})
    .map(([key, op]) => {
      const channel = resolve(asyncapi, op.channel);
      const channelKey = op.channel.$ref.split('/').pop();
      return `<tr><td><code>${escapeHtml(key)}</code></td><td>${escapeHtml(op.action)}</td><td><a href="#channel-${escapeHtml(slug(channelKey))}">${escapeHtml(channel.title ?? channelKey)}</a></td><td>${markdownInline(op.summary ?? '')}</td></tr>`;
    })
    .join('');

  const body = `<h1>Events reference</h1>
<p class="muted">Generated from the AsyncAPI ${escapeHtml(asyncapi.asyncapi)} document (<a href="asyncapi.yaml">asyncapi.yaml</a>, part 6 of the interface specification). The same document rendered by Redoc: <a href="asyncapi.html">AsyncAPI reference</a>. Webhook deliveries are also in the <a href="reference.html#/events/deliverevent">API reference</a>.</p>
${markdownBlock(asyncapi.info.description)}
<h2 id="channels">Delivery channels</h2>
${channels.join('\n')}
<h2 id="local-fan-out-rules">Local fan-out target rules</h2>
<p>The rules are those of the <a href="#channel-${escapeHtml(slug(fanOutKey ?? ''))}">${escapeHtml(asyncapi.channels[fanOutKey]?.title ?? 'local fan-out target')}</a> channel above (parts 5.9 and 6): a loopback URL only, optional HMAC signature and bearer token, one retry and then the event is dropped, requests not serialized. The <a href="local-tools.html">mock and tools guide</a> shows how to run a local agent.</p>
<h2 id="envelope">Envelope</h2>
${markdownBlock(schemasComponent.Event.description)}
${fieldTable(asyncapi, { $ref: '#/components/schemas/Event' })}
<h3 id="related-object"><code>relatedObject</code></h3>
${markdownBlock(schemasComponent.RelatedObject?.description)}
${schemasComponent.RelatedObject ? fieldTable(asyncapi, { $ref: '#/components/schemas/RelatedObject' }) : ''}
<h2 id="event-types">Event types</h2>
${markdownBlock(schemasComponent.EventType.description)}
<ul>${types.map(({ type }) => `<li><a href="#event-${escapeHtml(slug(type))}"><code>${escapeHtml(type)}</code></a></li>`).join('')}</ul>
${typeSections.join('\n')}
<section class="event-type">
<h3 id="event-other-types">Other types</h3>
${markdownBlock(schemasComponent.UnknownEvent?.description)}
${otherExamples.map(exampleHtml).join('\n')}
</section>
<h2 id="operations">Operations</h2>
<p>Described from the service's side (and its local listening agent's).</p>
<table><thead><tr><th>Operation</th><th>Action</th><th>Channel</th><th>Summary</th></tr></thead><tbody>${operations}</tbody></table>`;

  return { title: 'Events reference', body, types: types.map((t) => t.type) };
}
