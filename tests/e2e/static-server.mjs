// A tiny static file server for the end-to-end test: serves a folder under
// a sub-path (for example dist/ at /tabletop/), answers 404 everywhere else,
// and records every request, so the test can prove the build uses no
// absolute asset URLs.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Starts serving `root` under `prefix` (which must start and end with "/")
 * on a free loopback port. Resolves to { url, requests, close }.
 */
export async function serveStatic(root, prefix) {
  const base = path.resolve(root);
  const requests = [];
  const server = createServer(async (req, res) => {
    const record = { path: req.url, status: 404 };
    requests.push(record);
    const send = (status, body, type = 'text/plain; charset=utf-8') => {
      record.status = status;
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      return send(400, 'bad request\n');
    }
    record.path = urlPath;
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    if (urlPath === prefix.slice(0, -1)) {
      record.status = 301;
      res.writeHead(301, { location: prefix });
      return res.end();
    }
    if (!urlPath.startsWith(prefix)) return send(404, `not found: ${urlPath} is outside ${prefix}\n`);
    let file = path.join(base, urlPath.slice(prefix.length));
    if (file !== base && !file.startsWith(base + path.sep)) return send(403, 'forbidden\n');
    try {
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      const body = await readFile(file);
      return send(200, body, TYPES[path.extname(file)] ?? 'application/octet-stream');
    } catch {
      return send(404, `not found: ${urlPath}\n`);
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
