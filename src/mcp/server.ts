// The MCP server itself (the official SDK's low-level `Server`, which takes the tools' JSON
// Schemas as they are) over a service (service.ts): `tools/list` and `tools/call`, and the
// instructions a client shows its model. One per connection: stdio has one, the Streamable HTTP
// transport one per request (http-transport.ts); they share the service.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpService } from './service.js';

export const SERVER_NAME = 'numbers-api';

export function createMcpServer(service: McpService, version: string): Server {
  const server = new Server({ name: SERVER_NAME, title: 'Numbers API (Messaging and Voice Number Service)', version }, { capabilities: { tools: { listChanged: false } }, instructions: service.instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: service.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => service.call(request.params.name, request.params.arguments, extra.signal));
  return server;
}
