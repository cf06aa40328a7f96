// What the client tests need from the bundled description, read independently of the generated
// constants: the server addresses, every documented error example (with its status), and every
// event example.
import { followRef, HTTP_METHODS, loadOpenApi, type JsonObject } from './contract.js';

export interface ErrorExample {
  status: number;
  name: string;
  value: { error: unknown; code?: string };
}

export interface EventExample {
  name: string;
  value: JsonObject;
}

function serverUrl(server: JsonObject): string {
  return String(server.url).replace(/\{([^}]+)\}/g, (_, name: string) => server.variables[name].default);
}

export function readGenerated(): {
  servers: { base: string; legacy: string; mock: string };
  errorExamples: ErrorExample[];
  eventExamples: EventExample[];
} {
  const document = loadOpenApi();
  const servers = document.servers as JsonObject[];
  const legacy = servers.find((s) => String(s.url).includes('legacy'));
  const mock = servers.find((s) => String(s.url).startsWith('http://127.0.0.1'));
  if (!servers[0] || !legacy || !mock) throw new Error('the description lacks a base, legacy or mock server');

  const errorExamples: ErrorExample[] = [];
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = (followRef(document, pathItem as JsonObject) as JsonObject)[method] as JsonObject | undefined;
      for (const [status, rawResponse] of Object.entries(operation?.responses ?? {})) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const response = followRef(document, rawResponse as JsonObject);
        for (const [name, rawExample] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
          const value = followRef(document, rawExample as JsonObject).value;
          if (value && typeof value === 'object' && 'error' in value) errorExamples.push({ status: Number(status), name, value });
        }
      }
    }
  }

  const eventExamples: EventExample[] = Object.entries(document.components?.examples ?? {})
    .map(([name, example]) => ({ name, value: (example as JsonObject).value }))
    .filter(({ value }) => value && typeof value === 'object' && value.object === 'event');

  return { servers: { base: serverUrl(servers[0]), legacy: serverUrl(legacy), mock: serverUrl(mock) }, errorExamples, eventExamples };
}
