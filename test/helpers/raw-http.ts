// One HTTP request with exactly the headers given, `Host` included (fetch keeps Host to itself),
// and its answer as text: for the tests of what a server does with a Host, an Origin or a body it
// should refuse; and an answer that never ends, for the tests of a client that must stop reading.
import { request, type ServerResponse } from 'node:http';

/** A 200 JSON answer whose body goes on (up to 64 MB, as fast as it is read); the count of bytes written so far. */
export function endlessAnswer(res: ServerResponse): () => number {
  let written = 0;
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = (): void => {
    while (!res.destroyed && written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
    if (!res.destroyed && written < 64 * 1024 * 1024) res.once('drain', pump);
  };
  res.socket?.on('close', () => res.destroy());
  pump();
  return () => written;
}

export async function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
