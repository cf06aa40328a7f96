// What the tests' stand-in servers share: a body read whole, and a server on 127.0.0.1 (a free
// port) that keeps an idle connection as deployments do and, closed, ends every connection at once.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';

/** Everything `stream` (a request, an answer) carries, once it has ended (what came, if it broke off). */
export function readWhole(stream: Readable): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

/** `server` listening on 127.0.0.1, its URL and how to close it. */
export async function listenLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  // As the mock and common front ends keep an idle connection (65 s), not Node's 5 s: a client that
  // reuses a connection the server is closing that very moment reads ECONNRESET, which a loaded
  // machine makes likely and no deployment of this kind shows.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
