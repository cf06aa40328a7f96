// Targets added, listed and removed while the agent runs (part 6, fan-out rule 5), through a
// small control API on a loopback port (127.0.0.1 only, never another interface):
//   GET    /targets                  → 200 {"targets": [url, ...]}
//   POST   /targets  {"url": "..."}  → 201 {"targets": [...]}; 400 {"error"} for a URL rule 1 refuses
//   DELETE /targets  {"url": "..."}  → 200 {"targets": [...]}; 404 {"error"} when it is not a target
// (`?url=` works in place of the body for DELETE.) `numbers-api listen targets ...` calls it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TargetUrlError } from '../delivery/loopback-url.js';
import type { ListenAgent } from './agent.js';

export interface ControlServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
}

export async function startControlServer(agent: ListenAgent, port = 0, log: (line: string) => void = () => undefined): Promise<ControlServer> {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/targets') return answer(response, 404, { error: 'Use /targets (GET, POST or DELETE).' });
    try {
      if (request.method === 'GET') return answer(response, 200, { targets: agent.targets() });
      const text = await readBody(request);
      let given = url.searchParams.get('url') ?? undefined;
      if (text.trim() !== '') {
        const parsed = JSON.parse(text) as { url?: unknown };
        if (typeof parsed.url === 'string') given = parsed.url;
      }
      if (!given) return answer(response, 400, { error: 'Give the target as {"url": "http://127.0.0.1:3000/hooks"}.' });
      if (request.method === 'POST') {
        const added = agent.addTarget(given);
        log(`target added: ${added.href}`);
        return answer(response, 201, { targets: agent.targets() });
      }
      if (request.method === 'DELETE') {
        if (!agent.removeTarget(given)) return answer(response, 404, { error: `${given} is not a target.`, targets: agent.targets() });
        log(`target removed: ${given}`);
        return answer(response, 200, { targets: agent.targets() });
      }
      return answer(response, 405, { error: 'Use GET, POST or DELETE.' });
    } catch (error) {
      if (error instanceof TargetUrlError || error instanceof SyntaxError) return answer(response, 400, { error: error.message });
      return answer(response, 500, { error: (error as Error).message });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
