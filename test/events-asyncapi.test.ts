// Part 6 (delivery channels) in the AsyncAPI 3.0 document: the bundled generated/asyncapi.json and
// .yaml parse and validate with @asyncapi/parser with no error diagnostics; each delivery channel
// of part 6 is there and states its guarantee where a reader of the docs sees it; the local
// fan-out rules (loopback hosts, http/https, signature and bearer headers) are carried; and every
// message example validates against its message's headers and payload schemas.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DiagnosticSeverity, Parser, fromFile } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { contractValidator } from '../src/contract/contract-validator.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { followRef, generatedFiles, loadAsyncApi, repoRoot, type JsonObject } from './helpers/contract.js';

const asyncapi = loadAsyncApi();
const channels = asyncapi.channels as Record<string, JsonObject>;
const packageVersion = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version as string;

describe('AsyncAPI document (generated/asyncapi.*)', () => {
  for (const file of [generatedFiles.asyncapiJson, generatedFiles.asyncapiYaml]) {
    it(`${path.basename(file)} parses and validates with @asyncapi/parser without errors`, async () => {
      const { document, diagnostics } = await fromFile(new Parser(), file).parse();
      const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
      expect(errors.map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
      expect(document).toBeDefined();
      expect(document!.version()).toBe('3.0.0');
      expect(document!.info().version()).toBe(packageVersion);
      // Every channel, operation and message of the raw document survives parsing.
      expect(document!.channels().all().map((c) => c.id()).sort()).toEqual(Object.keys(channels).sort());
      expect(document!.operations().all().length).toBe(Object.keys(asyncapi.operations).length);
    });
  }

  it('is AsyncAPI 3.0.0 with info.version equal to the package version', () => {
    expect(asyncapi.asyncapi).toBe('3.0.0');
    expect(asyncapi.info.version).toBe(packageVersion);
  });
});

describe('delivery channels of part 6', () => {
  it('has the four channels: account event stream, events/wait, webhook subscription, local fan-out target', () => {
    expect(Object.keys(channels).sort()).toEqual(['accountEventStream', 'eventsWait', 'localFanOutTarget', 'webhookSubscription']);
    expect(channels.eventsWait!.address).toBe('/api/v1/events/wait');
  });

  for (const [id, channel] of Object.entries(channels)) {
    it(`${id} states its delivery guarantee in x-delivery-guarantee, its summary and its description`, () => {
      expect(typeof channel['x-delivery-guarantee']).toBe('string');
      expect(channel['x-delivery-guarantee'].length).toBeGreaterThan(0);
      expect(channel.summary).toMatch(/Guarantee:/);
      expect(channel.description).toMatch(/\*\*Delivery guarantee: [^*]+\*\*/);
    });

    it(`${id} is served by at least one server and sent or received by an operation`, () => {
      expect((channel.servers ?? []).length).toBeGreaterThan(0);
      const used = Object.values(asyncapi.operations as Record<string, JsonObject>).some((op) => op.channel.$ref === `#/channels/${id}`);
      expect(used).toBe(true);
    });
  }

  it('states each guarantee as part 6 gives it', () => {
    expect(channels.accountEventStream!['x-delivery-guarantee']).toMatch(/live, presence-based, not at-least-once/);
    expect(channels.accountEventStream!.description).toMatch(/cannot be\s+recovered server-side/);
    expect(channels.webhookSubscription!['x-delivery-guarantee']).toBe('at-least-once');
    expect(channels.webhookSubscription!.description).toMatch(/X-Service-Event-ID/);
    expect(channels.webhookSubscription!.description).toMatch(/eventTypes/);
    expect(channels.eventsWait!['x-delivery-guarantee']).toMatch(/408/);
    const fanOut = channels.localFanOutTarget!;
    expect(fanOut['x-delivery-guarantee']).toMatch(/one retry/);
    expect(fanOut['x-delivery-guarantee']).toMatch(/dropped/);
    expect(fanOut['x-delivery-guarantee']).toMatch(/duplicates/);
    expect(fanOut.description).toMatch(/default 5/);
    expect(fanOut.description).toMatch(/not serialized/);
  });

  it('marks the stream channel inferred (its path is not shown) and leaves its address unset', () => {
    expect(channels.accountEventStream!.address).toBeNull();
    expect(channels.accountEventStream!['x-inferred']).toBe(true);
    expect(channels.accountEventStream!['x-inferred-reason']).toMatch(/not shown/);
  });

  it('limits the local fan-out target to http/https on the five loopback hosts of part 6', () => {
    const servers = (channels.localFanOutTarget!.servers as JsonObject[]).map((ref) => followRef(asyncapi, ref));
    expect(servers.map((s) => s.protocol).sort()).toEqual(['http', 'https']);
    for (const server of servers) {
      expect(server.host).toBe('{loopbackHost}:{port}');
      expect([...server.variables.loopbackHost.enum].sort()).toEqual(['0.0.0.0', '127.0.0.1', '::1', '[::1]', 'localhost'].sort());
    }
  });

  it('delivers by HTTP POST to webhook subscriptions and fan-out targets, and events/wait is a POST', () => {
    for (const op of Object.values(asyncapi.operations as Record<string, JsonObject>)) {
      if (op.channel.$ref === '#/channels/accountEventStream') continue; // transport not shown
      expect(op.bindings?.http?.method, op.title).toBe('POST');
    }
  });
});

describe('AsyncAPI schemas', () => {
  it('no schema puts keywords beside a $ref (the AsyncAPI schema dialect, draft-07, would ignore them)', () => {
    const siblings: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`));
      else if (node !== null && typeof node === 'object') {
        const keys = Object.keys(node);
        if (keys.includes('$ref') && keys.length > 1) siblings.push(`${at}: ${keys.join(', ')}`);
        for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
      }
    };
    walk(asyncapi.components.schemas, '#/components/schemas');
    expect(siblings).toEqual([]);
  });
});

describe('AsyncAPI messages', () => {
  // Only the components: the root's `id` (an AsyncAPI field) would read as draft-04 `id` to ajv.
  const validator = contractValidator({ components: asyncapi.components });
  const messages = asyncapi.components.messages as Record<string, JsonObject>;

  it('every event message carries the shared AnyEvent payload and examples', () => {
    const eventMessages = Object.entries(messages).filter(([name]) => name !== 'eventWaitRequest');
    expect(eventMessages.length).toBe(3);
    for (const [name, message] of eventMessages) {
      expect(message.payload, name).toEqual({ $ref: '#/components/schemas/AnyEvent' });
      expect((message.examples ?? []).length, name).toBeGreaterThan(0);
    }
  });

  it('webhook deliveries require X-Service-Event-ID; fan-out deliveries declare the signature and bearer headers', () => {
    const webhookHeaders = followRef(asyncapi, messages.webhookEvent!.headers);
    expect(webhookHeaders.required).toContain('X-Service-Event-ID');
    const fanOutHeaders = followRef(asyncapi, messages.localFanOutEvent!.headers);
    expect(Object.keys(fanOutHeaders.properties)).toEqual(expect.arrayContaining(['X-Service-Signature', 'Authorization', 'Content-Type']));
    expect(fanOutHeaders.required ?? []).not.toContain('X-Service-Signature'); // optional (part 5.9)
    expect(fanOutHeaders.required ?? []).not.toContain('Authorization');
  });

  for (const [name, message] of Object.entries(messages)) {
    for (const [index, example] of (message.examples as JsonObject[]).entries()) {
      it(`${name} example ${example.name ?? index} validates against the message's payload and headers schemas`, () => {
        expect(validator.value(`#/components/messages/${name}/payload`, example.payload).map(describeVerdict)).toEqual([]);
        if (message.headers) {
          expect(validator.value(`#/components/messages/${name}/headers`, example.headers ?? {}).map(describeVerdict)).toEqual([]);
        }
        if (name === 'webhookEvent') expect(example.headers['X-Service-Event-ID']).toBe(example.payload.id);
      });
    }
  }

  it('the signed fan-out example carries the HMAC-SHA256 hex of its raw body under the secret it names', () => {
    const signed = (messages.localFanOutEvent!.examples as JsonObject[]).find((e) => e.headers?.['X-Service-Signature']);
    expect(signed).toBeDefined();
    const secret = /--secret ([\w-]+)/.exec(signed!.summary)?.[1];
    expect(secret).toBeDefined();
    const expected = createHmac('sha256', secret!).update(JSON.stringify(signed!.payload)).digest('hex');
    expect(signed!.headers['X-Service-Signature']).toBe(expected);
    expect(signed!.headers.Authorization).toMatch(/^Bearer \S+$/);
  });
});
