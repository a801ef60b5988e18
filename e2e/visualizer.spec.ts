import { expect, test, type Page } from '@playwright/test';
import { ISOLATED, PLAIN } from './servers';

// The visualizer in a real Chromium, read through the views' text alternatives (the tables a
// screen reader navigates), at steps whose state is known from the simulator's own tests:
// docs/scenarios/slub-remote-free.slab has 120 steps; after step 104 the first slab of
// kmalloc-128 sits frozen on cpu1's partial stack with 31 of 32 objects in use; at the end it is
// on node 0's partial list with 16 in use. The detailed views are tabs beside the stage: a test
// opens the one it reads (`pane`).


async function open(page: Page, query: string) {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${PLAIN}?${query}`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', /\d+/);
}

async function at(page: Page, step: number) {
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', String(step));
  // The tables follow the drawings at low priority and say so while they catch up.
  await expect(page.locator('.vis-main [aria-busy="true"]')).toHaveCount(0);
}

/** Opens a pane beside the stage. */
async function pane(page: Page, view: string) {
  await page.getByTestId(`tab-${view}`).click();
  await expect(page.getByTestId(`tab-${view}`)).toHaveAttribute('aria-selected', 'true');
  // A pane's code comes when its tab is first chosen.
  await expect(page.getByTestId('pane-loading')).toHaveCount(0);
}

/** The text of every text alternative of the panes and the explain panel, pane by pane, in
 *  document order. */
async function texts(page: Page): Promise<string[]> {
  const all: string[] = [];
  for (const view of ['explain', 'cpu', 'node', 'slab']) {
    await pane(page, view);
    await expect(page.locator('.vis-main [aria-busy="true"]')).toHaveCount(0);
    all.push(...(await page.locator('.vis-pane [data-testid]').evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('data-testid')}=${n.textContent}`))));
  }
  await pane(page, 'explain');
  return all;
}

test('each view shows the kernel state at known steps of the remote-free preset', async ({ page }) => {
  await open(page, 'preset=slub-remote-free&cache=kmalloc-128&step=104');
  await at(page, 104);
  await expect(page.getByTestId('position')).toContainText('104');
  // CPU panel: the slab frozen onto cpu1's partial stack by the first remote free.
  await pane(page, 'cpu');
  await expect(page.getByTestId('cpu-1-partial')).toContainText('slab 0: 31/32');
  await expect(page.getByTestId('cpu-1-partial')).toContainText('frozen');
  await expect(page.getByTestId('cpu-0-slab')).toContainText('slab 2');
  // Explain panel: the step's kernel function, linked to the 6.6 source, and its narration.
  await pane(page, 'explain');
  const fn = page.getByTestId('explain-function').locator('a');
  await expect(fn).toHaveAttribute('href', /elixir\.bootlin\.com\/linux\/v6\.6\//);
  await expect(page.getByTestId('explain-caption')).not.toContainText('{{');
  await expect(page.getByTestId('explain-op')).toContainText('kfree(x) on cpu1');

  // The end: flushed to node 0's partial list, which slabinfo and sysfs agree with.
  await page.getByTestId('last').click();
  await at(page, 120);
  await pane(page, 'node');
  await expect(page.getByTestId('node-0-nr-partial')).toHaveText(/nr_partial 1 \/ min_partial 5/);
  await expect(page.getByTestId('node-0-partial')).toContainText('slab 0: 16/32');
  await pane(page, 'cpu');
  await expect(page.getByTestId('cpu-1-partial')).toContainText('NULL');
  await pane(page, 'files');
  // /proc/slabinfo as a table that fits its column, without sideways scrolling; the kernel's
  // text a click away.
  const row = page.locator('[data-testid="files-slabinfo-row"][data-cache="kmalloc-128"]');
  await expect(row.locator('td')).toHaveText(['80 (changed at this step)', '96', '128', '32', '1', '3', '3']);
  // The flush put the cpu slab's free objects on the node list, where slabinfo counts them.
  await expect(row.locator('td').first()).toHaveAttribute('data-changed', 'true');
  const table = page.getByTestId('files-slabinfo-table');
  expect(await table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
  expect(await table.evaluate((t) => parseFloat(getComputedStyle(t.querySelector('td')!).fontSize))).toBeGreaterThanOrEqual(12);
  await expect(page.getByTestId('files-slabinfo-changes')).toHaveText(/^\d+ values? changed at this step$/);
  // SLUB's tunables and sharedavail read 0 for every cache: hidden until chosen.
  await page.getByTestId('files-slabinfo-columns').locator('summary').click();
  await page.getByLabel('slabdata: sharedavail').check();
  await expect(row.locator('td')).toHaveCount(8);
  await page.getByText("The kernel's text").click();
  await expect(page.getByTestId('files-slabinfo')).toContainText(
    'kmalloc-128           80     96    128   32    1 : tunables    0    0    0 : slabdata      3      3      0',
  );
  await expect(page.getByTestId('files-buddyinfo')).toContainText('Node 0, zone   Normal');
});

test('a bulk free shows its detached freelist; the buddy view shows merged pairs', async ({ page }) => {
  await open(page, 'preset=bulk-free&step=6');
  await at(page, 6);
  await expect(page.getByTestId('bulk-0-summary')).toContainText('20 objects of slab 1 gathered; 22 entries scanned');
  await expect(page.getByTestId('bulk-0-result')).toContainText("onto slab 1's freelist with one cmpxchg: not cpu1's c->slab");
  await open(page, 'preset=buddy-split-merge&step=15');
  await at(page, 15);
  await pane(page, 'buddy');
  await expect(page.getByTestId('buddy-pairs')).toContainText(/merged: pfn \d+ \+ pfn \d+ \(order \d\)/);
  // The lists are painted on a canvas: the pointer finds a block (its tooltip names it), and
  // a click on it follows that page.
  const canvas = page.getByTestId('buddy-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  // The drawing's own width is the viewBox of the pair overlay, which shares its scale.
  const viewBox = (await page.getByTestId('buddy-drawing').getAttribute('viewBox'))!.split(' ').map(Number);
  const scale = box.width / viewBox[2];
  let title = '';
  // Down the first column of blocks (LABEL_W + half a block in views/buddy.ts).
  for (let y = 0; y < Math.min(box.height, 700) && !title.startsWith('Block'); y += 3) {
    await page.mouse.move(box.x + (116 + 23) * scale, box.y + y * scale);
    title = (await canvas.getAttribute('title')) ?? '';
  }
  const block = /^Block at pfn (\d+), order (\d+), on (free_area|pcp)$/.exec(title);
  expect(block, title).not.toBeNull();
  await page.mouse.down();
  await page.mouse.up();
  await expect(page.getByTestId('lane')).toContainText(`Life of page frame ${block![1]}`);
});

test('stepping back restores exactly the earlier view', async ({ page }) => {
  await open(page, 'preset=slub-remote-free&step=100');
  await at(page, 100);
  const before = await texts(page);
  expect(before.length).toBeGreaterThan(10);
  for (let i = 0; i < 3; i++) await page.getByTestId('step-forward').click();
  await at(page, 103);
  expect(await texts(page)).not.toEqual(before);
  for (let i = 0; i < 3; i++) await page.getByTestId('step-back').click();
  await at(page, 100);
  expect(await texts(page)).toEqual(before);
});

test('switching language keeps the position, and Korean wraps by word', async ({ page }) => {
  await open(page, 'preset=slub-remote-free&step=50');
  await at(page, 50);
  const english = await page.getByTestId('explain-caption').textContent();
  await page.getByTestId('language').selectOption('ko');
  await at(page, 50);
  await expect(page.getByTestId('explain-caption')).toContainText(/[가-힣]/);
  expect(await page.getByTestId('explain-caption').textContent()).not.toEqual(english);
  // The URL is written once the state has rested.
  await expect.poll(() => new URL(page.url()).searchParams.get('lang')).toBe('ko');
  expect(new URL(page.url()).searchParams.get('step')).toBe('50');
  const wordBreak = await page.getByTestId('explain-caption').evaluate((n) => getComputedStyle(n).wordBreak);
  expect(wordBreak).toBe('keep-all');
  // A reload of the link lands on the same step in Korean.
  await page.reload();
  await at(page, 50);
  await expect(page.getByTestId('explain-caption')).toContainText(/[가-힣]/);
});

test('keyboard shortcuts move the cursor and open the help', async ({ page }) => {
  await open(page, 'preset=slub-remote-free&step=0');
  await at(page, 0);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ArrowRight');
  await at(page, 1);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
  await at(page, 1);
  // Shift+→ ends the next operation: the first kmalloc.
  await page.keyboard.press('Shift+ArrowRight');
  const afterOp = Number(await page.getByTestId('visualizer').getAttribute('data-cursor'));
  expect(afterOp).toBeGreaterThan(1);
  await expect(page.getByTestId('op-label')).toContainText('kmalloc(100) on cpu0');
  await page.keyboard.press('End');
  await at(page, 120);
  await page.keyboard.press('Home');
  await at(page, 0);
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('following an object shows its life across the run', async ({ page }) => {
  await open(page, 'preset=slub-remote-free&cache=kmalloc-128&step=120');
  await at(page, 120);
  await pane(page, 'slab');
  await page.getByTestId('slab-text-toggle').click();
  await page.getByTestId('slab-slots').getByTestId('slot-addr').first().getByRole('button').click();
  const lane = page.getByTestId('lane-list');
  await expect(lane).toContainText('allocated on cpu0');
  await expect(lane).toContainText('freed on cpu1');
  await lane.getByRole('button').first().click();
  await at(page, 0);
});

test('a screenshot of each view is kept', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.goto(`${ISOLATED}?preset=slub-remote-free&cache=kmalloc-128&step=104`);
  await at(page, 104);
  await page.screenshot({ path: testInfo.outputPath('main.png'), fullPage: false });
  // No bulk free at this step: its tab is left out.
  await expect(page.getByTestId('tab-bulk')).toHaveCount(0);
  for (const view of ['stage', 'explain', 'cpu', 'node', 'slab', 'buddy', 'files']) {
    if (view !== 'stage') await pane(page, view);
    if (view === 'files') await expect(page.getByTestId('files-slabinfo-table')).toBeVisible();
    const shot = await page.locator(`#view-${view}`).screenshot({ path: testInfo.outputPath(`view-${view}.png`) });
    await testInfo.attach(`view-${view}`, { body: shot, contentType: 'image/png' });
    expect(shot.length).toBeGreaterThan(1000);
  }
});

test('a step opens into its micro-steps, the kernel’s own points, in the reader’s language', async ({ page }) => {
  // Step 40 of the remote-free preset is a fast-path allocation on cpu0.
  await open(page, 'preset=slub-remote-free&step=40');
  await at(page, 40);
  await expect(page.getByTestId('explain-function')).toContainText('slab_alloc_node()');
  const micro = page.getByTestId('explain-micro');
  await micro.locator('summary').click();
  const items = micro.locator('li');
  await expect(items).toHaveCount(4);
  await expect(items.nth(0)).toContainText('READ_ONCE(c->tid)');
  await expect(items.nth(3)).toContainText('this_cpu_try_cmpxchg_freelist() succeeds');
  await expect(micro).not.toContainText('⚠');
  // The next step closes them again, and they open for it alone.
  await page.keyboard.press('ArrowRight');
  await at(page, 41);
  await expect(page.getByTestId('explain-micro')).not.toHaveAttribute('open', '');
});

test('the slab page’s legend speaks of what each allocator has: SLUB’s c->freelist and frozen slabs, SLAB’s array caches', async ({ page }) => {
  await page.goto(`${PLAIN}?preset=slub-remote-free`);
  await page.getByTestId('last').click();
  await pane(page, 'slab');
  const legend = page.getByTestId('slab-legend');
  await expect(legend).toContainText('c->freelist');
  await expect(legend).toContainText('frozen');
  await expect(legend).not.toContainText('array_cache');
  await page.goto(`${PLAIN}?preset=slab-paths&lang=ko&view=slab`);
  await page.getByTestId('last').click();
  await expect(legend).toContainText('array_cache');
  await expect(legend).not.toContainText('c->freelist');
  await expect(legend).not.toContainText('frozen');
});

test('the bare address opens after the first operation, a cache at work; a step without a cache shows one note, not empty panels', async ({ page }) => {
  await page.goto(ISOLATED);
  await expect(page.getByTestId('position')).not.toContainText('step 0 /');
  await expect(page.getByTestId('stage')).toBeVisible();
  await pane(page, 'cpu');
  await expect(page.getByTestId('cpu-0-slab')).toContainText('slab');
  await expect(page.getByTestId('views-waiting')).toHaveCount(0);
  // Step 0: the machine as booted, no cache shown.
  await page.getByTestId('first').click();
  await expect(page.getByTestId('views-waiting')).toContainText('No cache is shown at this step');
  await expect(page.locator('#view-cpu, #view-node, #view-bulk, #view-slab, [data-testid="stage"]')).toHaveCount(0);
  await expect(page.locator('#tab-cpu, #tab-node, #tab-bulk, #tab-slab')).toHaveCount(0);
  await page.getByTestId('views-waiting').getByRole('button').click();
  await expect(page.getByTestId('stage')).toBeVisible();
  await pane(page, 'cpu');
  await expect(page.getByTestId('cpu-0-slab')).toContainText('slab');
});
