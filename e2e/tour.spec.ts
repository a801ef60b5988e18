import { expect, test } from '@playwright/test';
import { TOUR_KEY } from '../web/components/tour';
import { ISOLATED } from './servers';

// A newcomer: nothing in the browser's storage.
test.use({ storageState: { cookies: [], origins: [] } });

test('a first visit to the bare address opens a short tour that can be skipped, and the header reopens it', async ({ page }) => {
  await page.goto(ISOLATED);
  const popover = page.locator('.driver-popover');
  await expect(popover).toBeVisible();
  await expect(popover.locator('.driver-popover-title')).toHaveText('The machine at this step');
  await expect(popover.locator('.driver-popover-progress-text')).toHaveText('1 of 4');
  await popover.getByRole('button', { name: 'Next' }).click();
  await expect(popover.locator('.driver-popover-title')).toHaveText('Step through the run');
  // Skipped: it does not come back on the next visit.
  await popover.getByRole('button', { name: 'Skip the tour' }).click();
  await expect(popover).toHaveCount(0);
  await expect(page.locator('body')).not.toHaveClass(/driver-active/);
  expect(await page.evaluate((key) => localStorage.getItem(key), TOUR_KEY)).toBe('seen');
  await page.goto(ISOLATED);
  await expect(page.getByTestId('position')).not.toContainText('step 0 /');
  await expect(popover).toHaveCount(0);
  // Asked for again, in Korean, it goes to the end.
  await page.getByTestId('language').selectOption('ko');
  await page.getByTestId('tour-open').click();
  await expect(popover.locator('.driver-popover-title')).toHaveText('이 단계의 머신');
  for (let i = 0; i < 3; i++) await popover.getByRole('button', { name: '다음' }).click();
  await expect(popover.locator('.driver-popover-title')).toHaveText('레슨');
  await popover.getByRole('button', { name: '마침' }).click();
  await expect(popover).toHaveCount(0);
});

test('a link to a scenario is not interrupted by the tour', async ({ page }) => {
  await page.goto(`${ISOLATED}?preset=slub-remote-free&step=30`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '30');
  await expect(page.locator('.driver-popover')).toHaveCount(0);
});
