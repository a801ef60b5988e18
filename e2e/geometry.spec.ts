import { expect, test, type Page } from '@playwright/test';
import { cliGeometry } from './cli';
import { DEV, ISOLATED, PLAIN } from './servers';

const COLUMNS = ['size', 'offset', 'order', 'objs_per_slab', 'slab_size', 'waste', 'min_partial', 'cpu_partial', 'cpu_partial_slabs'];

async function waitForSweep(page: Page) {
  const status = page.getByTestId('sweep-status');
  await expect(status).toBeVisible();
  await expect(page.getByTestId('sweep-table')).toBeVisible();
  return status;
}

/** Reads the table row of `size` for a page size and CPU count, and compares it with the CLI. */
async function expectRowMatchesCli(page: Page, pageSize: number, cpus: number, size: number, profile = 'linux-6.6') {
  await page.getByTestId('chart-page').selectOption(String(pageSize));
  await page.getByTestId('table-cpus').selectOption(String(cpus));
  await page.getByTestId('table-jump').fill(String(size));
  const row = page.locator(`[data-testid="sweep-table"] tr[data-size="${size}"]`);
  await expect(row).toBeVisible();
  const cli = cliGeometry(['--object-size', String(size), '--cpus', String(cpus), '--page-size', String(pageSize), '--profile', profile]);
  for (const column of [...COLUMNS, ...(profile === 'linux-6.6' ? [] : ['sheaf_capacity'])]) {
    const cell = await row.locator(`td[data-col="${column}"]`).textContent();
    expect(Number(cell), `${size} bytes, ${cpus} CPUs, ${pageSize}: ${column}`).toBe(cli[column]);
  }
}

test('isolated page runs the threaded build on a worker pool and matches the CLI', async ({ page }) => {
  await page.goto(`${ISOLATED}?page=geometry`);
  expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true);
  const mode = page.getByTestId('build-mode');
  await expect(mode).toHaveAttribute('data-threaded', 'true');
  await expect(mode).toContainText('Threaded build');

  const status = await waitForSweep(page);
  const workers = Number(await status.getAttribute('data-workers'));
  expect(workers).toBeGreaterThanOrEqual(2);
  // Every worker computed part of the grid: the work really was shared.
  const perWorker = (await status.getAttribute('data-points-per-worker'))!.split(',').map(Number);
  expect(perWorker).toHaveLength(workers);
  for (const n of perWorker) expect(n).toBeGreaterThan(0);
  expect(Number(await status.getAttribute("data-points"))).toBe(8185 * 64 * 3);
  await expect(status).toHaveAttribute('data-identical', 'true');
  const speedup = Number(await status.getAttribute('data-speedup'));
  expect(speedup).toBeGreaterThan(0);
  await expect(page.getByTestId('speedup')).toContainText('speedup');
  await expect(page.locator('[data-testid="geometry-chart"] path.series').first()).toBeVisible();
  console.log(`sweep: ${workers} workers, speedup ${speedup.toFixed(2)}x over one worker`);
  await page.screenshot({ path: 'test-results/screenshots/explorer-overview.png', fullPage: true });
  await page.screenshot({ path: 'test-results/screenshots/explorer-viewport.png' });

  for (const [pageSize, cpus, size] of [
    [4096, 2, 656],
    [4096, 2, 2432],
    [4096, 2, 7808],
    [4096, 4, 144],
    [16384, 4, 144],
    [65536, 64, 8],
    [4096, 1, 13],
    [4096, 3, 4097],
  ]) {
    await expectRowMatchesCli(page, pageSize, cpus, size);
  }
  await page.screenshot({ path: 'test-results/screenshots/explorer-isolated.png', fullPage: false });
});

test('a host without COOP/COEP gets the single-threaded build, which still works', async ({ page }) => {
  await page.goto(`${PLAIN}?page=geometry`);
  expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(false);
  const mode = page.getByTestId('build-mode');
  await expect(mode).toHaveAttribute('data-threaded', 'false');
  await expect(mode).toContainText('Single-threaded build (the page is not cross-origin isolated');
  const status = await waitForSweep(page);
  await expect(status).toHaveAttribute('data-workers', '1');
  await expectRowMatchesCli(page, 4096, 2, 656);
  await expectRowMatchesCli(page, 16384, 8, 1000);
});

test('a sweep under a later kernel lays the caches out as that kernel does', async ({ page }) => {
  await page.goto(`${PLAIN}?page=geometry`);
  await waitForSweep(page);
  await page.getByTestId('sweep-profile').selectOption('linux-7.2');
  await page.getByTestId('size-to').fill('16384');
  await page.getByTestId('size-step').fill('16');
  await page.getByTestId('cpus').fill('2, 4');
  await page.getByTestId('run-sweep').click();
  await expect(page.getByTestId('sweep-status')).toHaveAttribute('data-points', String(1024 * 2 * 3));
  // 7.2: a sheaf capacity for every cache, no cpu partial list; at 12232 bytes on 2 CPUs 6.7's
  // order rule parts from 6.6's (order 3 and two objects, not order 2 and one).
  for (const [pageSize, cpus, size] of [
    [4096, 2, 136],
    [4096, 4, 4104],
    [4096, 2, 12232],
    [16384, 4, 968],
  ]) {
    await expectRowMatchesCli(page, pageSize, cpus, size, 'linux-7.2');
  }
  const row = page.locator('[data-testid="sweep-table"] tr[data-size="968"]');
  expect(Number(await row.locator('td[data-col="sheaf_capacity"]').textContent())).toBeGreaterThan(0);
  expect(Number(await row.locator('td[data-col="cpu_partial"]').textContent())).toBe(0);
});

test('bad input gets a message and keeps what was typed', async ({ page }) => {
  await page.goto(`${PLAIN}?page=geometry`);
  await waitForSweep(page);
  await page.getByTestId('size-step').fill('0');
  await page.getByTestId('cpus').fill('2, 4-9');
  await page.getByTestId('run-sweep').click();
  await expect(page.getByTestId('form-error')).toContainText('step must be between 1 and');
  await expect(page.getByTestId('size-step')).toHaveValue('0');
  await expect(page.getByTestId('cpus')).toHaveValue('2, 4-9');
  await page.getByTestId('cpus').fill('2, 99');
  await page.getByTestId('size-step').fill('8');
  await page.getByTestId('run-sweep').click();
  await expect(page.getByTestId('form-error')).toContainText('“2, 99”');
});

test('Korean from the URL, switchable at runtime, kept in the URL', async ({ page }) => {
  await page.goto(`${PLAIN}?page=geometry&lang=ko`);
  await expect(page.getByRole('heading', { level: 2 })).toHaveText('캐시 구조 탐색기');
  // The navigation names the page as its heading does.
  await expect(page.getByRole('navigation').getByText('캐시 구조 탐색기')).toBeVisible();
  await waitForSweep(page);
  await page.getByTestId('language').selectOption('en');
  await expect(page.getByRole('heading', { level: 2 })).toHaveText('Cache geometry explorer');
  expect(new URL(page.url()).searchParams.get('lang')).toBe('en');
  await page.getByTestId('language').selectOption('ko');
  await expect(page.getByTestId('sweep-table')).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/explorer-ko.png' });
});

test('the dev server is isolated too, under a CSP that allows no inline script', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  const response = await page.goto(`${DEV}?page=geometry`);
  const headers = response!.headers();
  expect(headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(headers['cross-origin-embedder-policy']).toBe('require-corp');
  expect(headers['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval'");
  await expect(page.getByTestId('build-mode')).toHaveAttribute('data-threaded', 'true');
  await waitForSweep(page);
  expect(violations).toEqual([]);
});
