#!/usr/bin/env node
// `npm start`: sets up what is missing, builds both wasm modules and the site, then serves it
// (cross-origin isolated, so the threaded build runs) and prints the URL.
// PORT=NNNN picks another port.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

process.chdir(new URL('..', import.meta.url).pathname);
const home = process.env.HOME ?? '';
if (home && existsSync(join(home, '.cargo/bin'))) {
  process.env.PATH = `${join(home, '.cargo/bin')}:${process.env.PATH}`;
}

function step(label, command, args) {
  console.log(`\n▶ ${label}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit' });
  if (status !== 0) {
    console.error(`\n✗ ${label} failed (exit ${status}); see the output above.`);
    process.exit(status ?? 1);
  }
}

step('setting up', 'bash', ['scripts/setup.sh']);
step('building the wasm modules', 'bash', ['scripts/build-wasm.sh', 'all']);
step('building the site', 'npx', ['vite', 'build', '--logLevel', 'warn']);

const port = process.env.PORT ?? '4173';
console.log(`\n▶ serving`);
const server = spawn('npx', ['vite', 'preview', '--port', port, '--strictPort'], { stdio: ['inherit', 'pipe', 'inherit'] });
server.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  if (String(chunk).includes('Local')) {
    console.log(`\nSlabscope is running at http://localhost:${port}/  (Ctrl-C stops it)\n`);
  }
});
server.on('close', (code) => process.exit(code ?? 0));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
