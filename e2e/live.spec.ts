import { expect, test } from '@playwright/test';
import { ISOLATED, PLAIN } from './servers';

test('a live run races on the worker pool, replays to the same state, and opens in the player', async ({ page }) => {
  await page.goto(`${ISOLATED}?page=live`);
  await expect(page.getByTestId('build-mode')).toHaveAttribute('data-threaded', 'true');
  await page.getByTestId('live-threads').fill('2');
  await page.getByTestId('live-ops').fill('1500');
  await page.getByTestId('live-run').click();
  const figures = page.getByTestId('live-figures');
  await expect(figures).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('live-total')).toContainText('1,500 operations on 2 threads');
  await expect(figures.locator('tbody tr').first()).toContainText('cpu0');
  await expect(page.getByTestId('live-replay-ok')).toContainText('final states are equal');
  await page.screenshot({ path: 'test-results/screenshots/live.png', fullPage: true });

  // The replay is an ordinary run: the player steps through what the threads did.
  await page.getByTestId('live-open').click();
  await expect(page).toHaveURL(/src=saved|s=/);
  const position = page.getByTestId('position');
  await expect(position).toContainText(/step 0 \/ [0-9]{4,}/, { timeout: 60_000 });
  await page.getByTestId('step-forward').click();
  await expect(position).toContainText('step 1 /');
});

test('bad input is named in the person’s language and the typed text stays', async ({ page }) => {
  await page.goto(`${ISOLATED}?page=live&lang=ko`);
  await page.getByTestId('live-ops').fill('열');
  await page.getByTestId('live-run').click();
  await expect(page.getByTestId('live-error')).toContainText('연산 수');
  await expect(page.getByTestId('live-ops')).toHaveValue('열');
  await expect(page.getByTestId('live-ops')).toHaveAttribute('aria-invalid', 'true');
});

test('without cross-origin isolation live mode says it is unavailable and why', async ({ page }) => {
  await page.goto(`${PLAIN}?page=live`);
  await expect(page.getByTestId('build-mode')).toHaveAttribute('data-threaded', 'false');
  await expect(page.getByTestId('live-unavailable')).toContainText('Live mode is unavailable');
  await expect(page.getByTestId('live-unavailable')).toContainText('not cross-origin isolated');
  await page.goto(`${PLAIN}?page=live&lang=ko`);
  await expect(page.getByTestId('live-unavailable')).toContainText('라이브 모드를 쓸 수 없습니다');
});
