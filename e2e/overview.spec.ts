import { expect, test, type Page } from '@playwright/test';
import { PLAIN } from './servers';

// The run at a glance and the breakpoints. docs/scenarios/slub-min-partial.slab: after cpu1's
// flush, cpu0 empties six slabs on node 0's partial list one free at a time; the first two go
// back to the page allocator (__slab_free() → discard_slab(), steps 40 and 41 on screen), the
// other four stay until kmem_cache_shrink() frees them all in one step (47, the last).

async function open(page: Page, query: string, step: number) {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${PLAIN}?${query}`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', String(step));
  await expect(page.getByTestId('overview-strip')).toBeVisible();
}

const cursor = (page: Page) => page.getByTestId('visualizer');

test('run until: a slab discarded, forward and back, and said so when there is no more', async ({ page }) => {
  await open(page, 'preset=slub-min-partial&step=0', 0);
  await page.getByTestId('breakpoint').selectOption('discard');
  const next = page.getByTestId('breakpoint-next');
  await next.click();
  await expect(cursor(page)).toHaveAttribute('data-cursor', '40');
  await expect(page.getByTestId('explain-function')).toContainText('__slab_free()');
  await next.click();
  await expect(cursor(page)).toHaveAttribute('data-cursor', '41');
  await next.click();
  await expect(cursor(page)).toHaveAttribute('data-cursor', '47');
  await next.click();
  await expect(cursor(page)).toHaveAttribute('data-cursor', '47');
  await expect(page.getByTestId('breakpoint-missed')).toHaveText('No later step matches.');
  await page.getByTestId('breakpoint-back').click();
  await expect(cursor(page)).toHaveAttribute('data-cursor', '41');
  await expect(page.getByTestId('breakpoint-missed')).toHaveText('');
});

test('run until list_lock: the stage shows the padlock taken at every stop', async ({ page }) => {
  await open(page, 'preset=slub-cpu-partial-flush&step=0', 0);
  await page.getByTestId('breakpoint').selectOption('listLock');
  let stops = 0;
  let last = '0';
  for (;;) {
    await page.getByTestId('breakpoint-next').click();
    const missed = page.getByTestId('breakpoint-missed');
    if ((await missed.textContent()) !== '') break;
    await expect(cursor(page)).not.toHaveAttribute('data-cursor', last);
    last = (await cursor(page).getAttribute('data-cursor'))!;
    await expect(page.locator('.stage-svg g.lock.lit')).toHaveCount(1);
    stops += 1;
    if (stops > 20) break;
  }
  expect(stops).toBeGreaterThan(0);
  expect(stops).toBeLessThan(20);
});

test('run until a kernel path, and the strip jumps where it is clicked', async ({ page }) => {
  await open(page, 'preset=slub-min-partial&step=0', 0);
  const select = page.getByTestId('breakpoint');
  await select.selectOption({ label: '__kmem_cache_do_shrink() · sort and free' });
  await page.getByTestId('breakpoint-next').click();
  await expect(cursor(page)).toHaveAttribute('data-cursor', '47');
  // The strip's first column starts at the first step; its last ends at the last.
  const strip = page.getByTestId('overview-strip');
  const box = (await strip.boundingBox())!;
  await strip.click({ position: { x: 1, y: box.height / 2 } });
  await expect(cursor(page)).toHaveAttribute('data-cursor', '1');
  await strip.click({ position: { x: box.width - 1, y: box.height / 2 } });
  await expect(cursor(page)).toHaveAttribute('data-cursor', '47');
});

test('run until the next use of the object followed', async ({ page }) => {
  // a[3] of the fast-path preset (0xffff888000000180): handed out by the fourth kmalloc, freed by
  // kfree(a[3]), handed out again to `again` (the fast path's last in, first out).
  await open(page, 'preset=slub-fast-path&step=4&follow=obj:0xffff888000000180', 4);
  await expect(page.getByTestId('lane')).toBeVisible();
  await page.getByTestId('breakpoint').selectOption('object');
  const next = page.getByTestId('breakpoint-next');
  await next.click();
  await expect(page.getByTestId('explain-op')).toContainText('a[] = kmalloc(128) on cpu0');
  await expect(page.getByTestId('explain-op')).toContainText('Operation 4 of');
  await next.click();
  await expect(page.getByTestId('explain-op')).toContainText('kfree(a[3]) on cpu0');
  await next.click();
  await expect(page.getByTestId('explain-op')).toContainText('again = kmalloc(128) on cpu0');
});
