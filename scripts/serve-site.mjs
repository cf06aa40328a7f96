#!/usr/bin/env node
// A static file server for the built docs site, on loopback: what the try-it consoles' service
// worker needs (a service worker cannot run from file://). Used by `npm run docs:serve`, by the
// browser tests and by the docs bench.
//
//   node scripts/serve-site.mjs [dir] [--port <n>]    (default docs/site, a free port)
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.yaml': 'text/yaml', '.svg': 'image/svg+xml', '.png': 'image/png' };

/** Serves `dir` on 127.0.0.1 (`port` 0: a free one). Resolves to `{ origin, close() }`. */
export async function serveSite(dir, { port = 0 } = {}) {
  const root = path.resolve(dir);
  const server = createServer((req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://site').pathname);
    } catch {
      res.writeHead(400).end('bad path');
      return;
    }
    let file = path.join(root, pathname);
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(404).end('not found');
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' }).end(readFileSync(file));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const portAt = args.indexOf('--port');
  const port = portAt >= 0 ? Number(args[portAt + 1]) : 0;
  const dir = args.find((a, i) => !a.startsWith('--') && i !== portAt + 1) ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../docs/site');
  if (!existsSync(path.join(dir, 'index.html'))) {
    console.error(`serve-site: no site in ${dir}; run npm run docs first`);
    process.exit(2);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve-site: --port needs a port number, got ${args[portAt + 1]}`);
    process.exit(2);
  }
  const { origin } = await serveSite(dir, { port });
  console.log(`docs: serving ${path.relative(process.cwd(), dir) || '.'} on ${origin}/ (Ctrl-C stops)`);
}
