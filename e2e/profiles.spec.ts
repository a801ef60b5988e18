import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { encodeScenario } from '../web/scenario/link';
import { cliCompareProfiles } from './cli';
import { ISOLATED } from './servers';

// Kernel profiles in a real Chromium against the built app: a Linux 7.2 scenario draws each
// CPU's sheaves and the barn (stage and sheaves tab), the kernel picker runs the shown
// scenario under another profile, and the split view steps two kernels in lockstep with the
// table `slabscope compare --profiles` prints.

const SHEAVES = readFileSync('web/views/fixtures/scenarios/sheaves.slab', 'utf8');

test('a 7.2 scenario shows sheaves and the barn; the picker moves it to 6.6 and back', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${ISOLATED}?s=${await encodeScenario(SHEAVES)}&step=41&cache=big`);
  const stage = page.getByTestId('stage');
  await expect(stage).toBeVisible();
  await expect(page.getByTestId('profile')).toHaveValue('linux-7.2');
  // The stage has no kmem_cache_cpu under 7.2: the per-CPU band is the sheaves.
  await expect(stage).toContainText('s->cpu_sheaves');
  await expect(stage).toContainText('pcs->main');
  await expect(stage).toContainText('barn->sheaves_full');
  await expect(stage).not.toContainText('c->freelist');
  // The sheaves tab draws every sheaf, and says the same in its list.
  await expect(page.getByTestId('tab-cpu')).toHaveCount(0);
  await page.getByTestId('tab-sheaves').click();
  await expect(page.getByTestId('sheaves-view')).toContainText('sheaf_capacity 4');

  // The picker: the same operations under 6.6 (a cpu slab, no sheaves), after as many of them.
  await expect(page.getByTestId('edit-toggle')).toBeVisible();
  await page.getByTestId('profile').selectOption('linux-6.6');
  await expect(page.getByTestId('profile')).toHaveValue('linux-6.6');
  await expect(page).toHaveURL(/cache=big/);
  await expect(stage).toContainText('c->freelist');
  await expect(stage).not.toContainText('pcs->main');
  await expect(page.getByTestId('tab-sheaves')).toHaveCount(0);
});

test('the split view steps 6.6 and 7.2 together and prints what slabscope compare prints', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${ISOLATED}?page=compare&preset=slub-remote-free&a=linux-6.6%2Fslub&b=linux-7.2%2Fslub`);
  await expect(page.getByTestId('compare-page')).toBeVisible();
  const table = page.getByTestId('compare-table');
  await expect(table).toBeVisible({ timeout: 30_000 });
  const cli = cliCompareProfiles('docs/scenarios/slub-remote-free.slab', 'linux-6.6', 'linux-7.2');
  const figures = cli.slice(0, cli.search(/^\/proc\/slabinfo/m)).trimEnd();
  await expect(table).toHaveText(figures);

  // Lockstep: after the first operation each side is at its own run's cursor for it.
  await page.getByTestId('compare-next').click();
  await expect(page.getByTestId('compare-op')).toHaveText(/after operation 1 of \d+/);
  await expect(page.getByTestId('compare-line')).toContainText('line');
  await expect(page.getByTestId('compare-side-a').getByTestId('stage')).toContainText('c->freelist');
  await expect(page.getByTestId('compare-side-b').getByTestId('stage')).toContainText('pcs->main');
  await expect(page).toHaveURL(/op=1/);
  const a = await page.getByTestId('compare-cursor-a').textContent();
  const b = await page.getByTestId('compare-cursor-b').textContent();
  expect(a).not.toEqual(b);

  // SLAB is offered under 6.6 only.
  const options = await page.getByTestId('compare-b').locator('option').allTextContents();
  expect(options.filter((o) => o.endsWith('SLAB'))).toHaveLength(1);
  // This preset flushes a cpu slab, which SLAB has not: the side says so, in words.
  await page.getByTestId('compare-b').selectOption('linux-6.6/slab');
  await expect(page.getByTestId('compare-error-b')).toContainText('flush_cpu_slab does not exist in SLAB');
  await expect(page.getByTestId('compare-side-a').getByTestId('stage')).toContainText('c->freelist');
});
