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

test('a recorded run longer than an epoch is replayed epoch by epoch, still equal', async ({ page }) => {
  await page.goto(`${ISOLATED}?page=live`);
  await expect(page.getByTestId('build-mode')).toHaveAttribute('data-threaded', 'true');
  await page.getByTestId('live-threads').fill('2');
  // Epochs of 2^18 operations: two whole ones and a short third.
  await page.getByTestId('live-ops').fill('600000');
  await page.getByTestId('live-run').click();
  await expect(page.getByTestId('live-figures')).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('live-epochs')).toContainText('3 epochs');
  await expect(page.getByTestId('live-replay-ok')).toContainText('final states are equal');
  await expect(page.getByTestId('live-cannot-open')).toContainText('at most 5,000 operations');
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

test('a scenario runs live block by block, each block replayed to its threads’ state, and opens in the player', async ({ page }) => {
  await page.goto(`${ISOLATED}?page=live`);
  await expect(page.getByTestId('build-mode')).toHaveAttribute('data-threaded', 'true');
  await page.getByTestId('live-source').selectOption('lesson-14');
  // The workload's fields go: the scenario says what runs on which CPU.
  await expect(page.getByTestId('live-ops')).toHaveCount(0);
  await page.getByTestId('live-run').click();
  const figures = page.getByTestId('live-scenario-figures');
  await expect(figures).toBeVisible({ timeout: 60_000 });
  await expect(figures.getByRole('heading', { level: 3 })).toHaveText([
    'Block at line 18: 2 operations on 2 threads',
    'Block at line 36: 3 operations on 2 threads',
  ]);
  await expect(page.getByTestId('live-replay-ok')).toHaveCount(2);
  await expect(page.getByTestId('live-replay-ok').first()).toContainText('every name and every list equal the live ones');
  await page.screenshot({ path: 'test-results/screenshots/live-scenario.png', fullPage: true });

  await page.getByTestId('live-open').click();
  await expect(page).toHaveURL(/src=saved|s=/);
  await expect(page.getByTestId('position')).toContainText(/step 0 \/ [0-9]+/, { timeout: 60_000 });
});

test('a draft that cannot run live is refused in the person’s language, naming its line', async ({ page }) => {
  const draft = 'slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=1M\nconcurrent\n  a = kmalloc(64) on cpu0\n  b = kmalloc(64) on cpu1 irq\nend\n';
  await page.goto(`${ISOLATED}?page=live&lang=ko`);
  await page.evaluate((d) => localStorage.setItem('slabscope.scenario.v1', JSON.stringify({ draft: d, typed: true, earlier: [], opened: [], run: null })), draft);
  await page.reload();
  await page.getByTestId('live-source').selectOption('draft');
  await page.getByTestId('live-run').click();
  const error = page.getByTestId('live-error');
  await expect(error).toContainText('5번째 줄', { timeout: 60_000 });
  await expect(error).toContainText('라이브로 실행할 수 없습니다');
  // Worded whole in Korean: the task is named, no English reason is pasted in.
  await expect(error).toContainText('cpu1 irq의 줄');
  await expect(error).not.toContainText('a line of');
});
