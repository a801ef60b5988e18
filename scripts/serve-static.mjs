#!/usr/bin/env node
// A plain static file server, standing in for a static host that sends no special headers.
// The e2e suite serves the built site with it to prove the app falls back to the
// single-threaded build when the page is not cross-origin isolated.
//
// Usage: node scripts/serve-static.mjs [--port N] [--isolate] DIR
//   --isolate  also send COOP/COEP/CSP, like a host that reads public/_headers

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { securityHeaders } from './security-headers.mjs';

const { values, positionals } = parseArgs({
  options: { port: { type: 'string', default: '4174' }, isolate: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const root = resolve(positionals[0] ?? 'dist');
const port = Number(values.port);

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webm': 'video/webm',
};

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
  let file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) {
    res.writeHead(403).end('forbidden');
    return;
  }
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' };
    res.writeHead(200, values.isolate ? { ...headers, ...securityHeaders } : headers).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
});

server.listen(port, '127.0.0.1', () => {
  console.log(`serving ${root} at http://127.0.0.1:${port}/${values.isolate ? ' (isolated)' : ''}`);
});
