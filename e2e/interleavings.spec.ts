import { expect, test } from '@playwright/test';
import { cliExplore } from './cli';
import { PLAIN } from './servers';

// The interleaving explorer in a real Chromium against the built app: it explores the ABA race
// without the tid as `slabscope explore` does, words what it found in the reader's language, and
// opens a group's first schedule in the player, keeping the person's own draft.

const DRAFT = 'slabscope-scenario 1\n# my own draft\nmachine cpus=1 nodes=1 memory=1M\na = kmalloc(64) on cpu0\n';

test('explores the ABA race, shows its outcomes in both languages and opens one in the player', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${PLAIN}?page=interleavings`);
  // What the person typed in the editor, as the editor saves it.
  await page.evaluate((draft) => localStorage.setItem('slabscope.scenario.v1', JSON.stringify({ draft, typed: true, earlier: [], opened: [], run: null })), DRAFT);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Interleaving explorer' })).toBeVisible();

  // A bound out of range is refused, in words, before anything runs.
  await page.getByTestId('explore-source').selectOption('smp-aba-no-tid');
  await page.getByTestId('explore-preemptions').fill('9');
  await page.getByTestId('explore-run').click();
  await expect(page.getByTestId('explore-error')).toHaveText('Forced switches per schedule must be between 0 and 5.');
  await expect(page.getByTestId('explore-preemptions')).toHaveAttribute('aria-invalid', 'true');
  await page.getByTestId('explore-preemptions').fill('2');

  await page.getByTestId('explore-run').click();
  const results = page.getByTestId('explore-results');
  await expect(results).toBeVisible();
  const cli = cliExplore('wasm-core/run/tests/golden/smp-aba-no-tid.slab');
  await expect(results).toHaveAttribute('data-schedules', String(cli.schedules));
  await expect(results).toHaveAttribute('data-cut-short', 'false');
  const groups = page.getByTestId('explore-group');
  expect(cli.groups.length).toBeGreaterThan(1);
  await expect(groups).toHaveCount(cli.groups.length);
  const damaged = page.locator('[data-testid="explore-group"][data-damaged="true"]');
  await expect(damaged).toHaveCount(cli.groups.filter((g) => g.damage.length > 0).length);
  await expect(damaged.first()).toContainText("c->freelist of t points at 0xffff888000000");
  await expect(page.locator('[data-testid="explore-group"][data-clean="true"]').first()).toContainText('No damage');

  // The same findings in Korean, from their keys: no English left in them.
  await page.getByTestId('language').selectOption('ko');
  await expect(damaged.first()).toContainText('손상:');
  await expect(damaged.first()).toContainText('c->freelist가 호출자가 쥐고 있는');
  await expect(damaged.first()).not.toContainText('known damage');
  await expect(page.getByRole('button', { name: '결과 1의 첫 스케줄을 플레이어에서 열기' })).toBeVisible();
  await page.getByTestId('language').selectOption('en');

  // The first damaged group's schedule opens as an ordinary run in the player.
  const schedule = (await damaged.first().locator('code.schedule').textContent())!;
  await damaged.first().getByTestId('explore-open').click();
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', /\d+/);
  expect(new URL(page.url()).searchParams.get('s')).toMatch(/^1\./);
  expect(new URL(page.url()).searchParams.get('page')).toBeNull();
  await page.getByTestId('edit-toggle').click();
  await expect(page.getByTestId('editor-text')).toContainText('concurrent explicit');
  await expect(page.getByTestId('editor-text')).toContainText(schedule);
  // The draft it replaced in the editor is kept among the earlier ones.
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('slabscope.scenario.v1')!));
  expect(saved.earlier.map((e: { text: string }) => e.text)).toContain(DRAFT);
  await expect(page.getByTestId('last')).toBeEnabled();
  await page.getByTestId('last').click();
  await expect.poll(async () => Number(await page.getByTestId('visualizer').getAttribute('data-cursor'))).toBeGreaterThan(20);
});
