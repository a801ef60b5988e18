import { defineConfig, devices } from '@playwright/test';

// End-to-end tests in a real Chromium. On machines where Playwright cannot download its own
// browser, the system Chromium is used (CHROMIUM_PATH, else /usr/bin/chromium when present).
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

/** `n` distinct ports nothing listens on now (the system's picks, all held until each is known). */
async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.on('error', reject);
          server.listen(0, () => resolve((server.address() as AddressInfo).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

// The servers' ports, found once by the main process; its test workers inherit them.
process.env.E2E_PORTS ??= (await freePorts(3)).join(',');
const { DEV, DEV_PORT, ISOLATED, ISOLATED_PORT, PLAIN, PLAIN_PORT } = await import('./e2e/servers');
const { TOUR_KEY } = await import('./web/components/tour');

const executablePath =
  process.env.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  timeout: 120_000,
  expect: { timeout: 60_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  use: {
    ...devices['Desktop Chrome'],
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-gpu',
        '--no-first-run',
      ],
    },
    trace: 'retain-on-failure',
    // The guided tour opens on a first visit to the bare address; the tests that are not about
    // it start as a visitor who has seen it (e2e/tour.spec.ts starts without).
    storageState: {
      cookies: [],
      origins: [ISOLATED, DEV, PLAIN].map((url) => ({ origin: new URL(url).origin, localStorage: [{ name: TOUR_KEY, value: 'seen' }] })),
    },
  },
  webServer: [
    {
      // Cross-origin isolated: Vite's preview server sends COOP/COEP/CSP.
      command: `npx vite preview --port ${ISOLATED_PORT} --strictPort`,
      url: ISOLATED,
      reuseExistingServer: false,
    },
    {
      // The dev server: same headers as preview, modules served unbundled.
      command: `npx vite --port ${DEV_PORT} --strictPort`,
      url: DEV,
      reuseExistingServer: false,
    },
    {
      // A static host without special headers.
      command: `node scripts/serve-static.mjs --port ${PLAIN_PORT} dist`,
      url: PLAIN,
      reuseExistingServer: false,
    },
  ],
});
