// What the scripts that drive a browser share (the web benchmark, the demo recorder): a
// server of the built site, started and waited for, and the Chromium they drive.

import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Starts `command args` (a server) and resolves once `url` answers; `stop()` ends it. */
export async function serve(command, args, url) {
  const server = spawn(command, args, { stdio: 'ignore', detached: true });
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { stop: () => process.kill(-server.pid) };
}

/** The system Chromium where Playwright cannot download its own (CHROMIUM_PATH overrides). */
export function launchChromium() {
  const executablePath = process.env.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
