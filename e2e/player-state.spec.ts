import { expect, test, type Page } from '@playwright/test';
import { encodeScenario } from '../web/scenario/link';
import { PLAIN } from './servers';

// The player's state across runs that fail and links that are opened: what stays on screen,
// what the bare address reopens, and what the person's own drafts survive.

/** Parses, but names a CPU the 2-CPU machine does not have. */
const CPU7 = `slabscope-scenario 1
machine cpus=2 nodes=1 memory=1M
a = kmalloc(64) on cpu7
`;

async function typeScenario(page: Page, text: string) {
  const editor = page.getByTestId('editor-text');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

test('a link whose scenario cannot run shows the error beside a usable editor, and is not what the bare address reopens', async ({ page }) => {
  await page.goto(`${PLAIN}?preset=bulk-free&step=3`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '3');

  await page.goto(`${PLAIN}?s=${await encodeScenario(CPU7)}`);
  await expect(page.getByTestId('run-error')).toContainText('cpu7');
  // The presets and the editor are there, the editor holding the link's text to fix.
  await expect(page.getByTestId('preset')).toBeVisible();
  await page.getByTestId('edit-toggle').click();
  await expect(page.getByTestId('editor-text')).toContainText('a = kmalloc(64) on cpu7');

  // The bare address opens the last run that worked, not the dead link.
  await page.goto(PLAIN);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '3');
  await expect(page.getByTestId('preset')).toHaveValue('bulk-free');
  await expect(page.getByTestId('run-error')).toHaveCount(0);

  // Back on the link, a preset picked from the bar opens.
  await page.goto(`${PLAIN}?s=${await encodeScenario(CPU7)}`);
  await expect(page.getByTestId('run-error')).toBeVisible();
  await page.getByTestId('preset').selectOption('slub-remote-free');
  await expect(page.getByTestId('run-error')).toHaveCount(0);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
  await expect(page.getByTestId('allocator')).toContainText('SLUB');
});

test('opening eleven share links keeps the draft the person typed among the earlier drafts', async ({ page }) => {
  await page.goto(`${PLAIN}?preset=bulk-free&step=0`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
  await page.getByTestId('edit-toggle').click();
  await typeScenario(page, '# typed by hand\nslabscope-scenario 1\nmachine cpus=1\n');
  // Saved once typing pauses.
  await page.waitForTimeout(800);

  for (let i = 0; i < 11; i++) {
    const text = `slabscope-scenario 1\n# opened link ${i}\nmachine cpus=1 nodes=1 memory=1M\nx = kmalloc(${16 * (i + 1)}) on cpu0\n`;
    await page.goto(`${PLAIN}?s=${await encodeScenario(text)}`);
    await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', /\d+/);
  }
  await page.getByTestId('edit-toggle').click();
  await expect(page.getByTestId('editor-text')).toContainText('# opened link 10');
  const earlier = page.getByTestId('earlier');
  await expect(earlier.locator('option', { hasText: 'typed by hand' })).toHaveCount(1);
  // Picking it puts it back in the editor.
  const value = await earlier.locator('option', { hasText: 'typed by hand' }).getAttribute('value');
  await earlier.selectOption(value ?? '');
  await expect(page.getByTestId('editor-text')).toContainText('# typed by hand');
});

test('a draft that fails to run leaves the previous run shown whole, marked as such, beside the error', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${PLAIN}?preset=slub-remote-free&step=30`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '30');
  await expect(page.getByTestId('explain-op')).toContainText('kmalloc(100) on cpu0');
  await page.getByTestId('edit-toggle').click();
  await typeScenario(page, CPU7);
  await page.getByTestId('run-draft').click();
  await expect(page.getByTestId('run-error')).toContainText('cpu7');

  // The views and the timeline are those of the same, previous run, and say so.
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '30');
  await expect(page.getByTestId('position')).toContainText('30');
  await expect(page.getByTestId('explain-op')).toContainText('kmalloc(100) on cpu0');
  await expect(page.getByTestId('stage')).toBeVisible();
  await page.getByTestId('tab-cpu').click();
  await expect(page.getByTestId('cpu-0-slab')).toBeAttached();
  await expect(page.getByTestId('previous-run')).toBeVisible();
  // It still steps.
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '31');

  // Fixed and run, the new run replaces it and the marks go.
  await typeScenario(page, CPU7.replace('cpu7', 'cpu1'));
  await page.getByTestId('run-draft').click();
  await expect(page.getByTestId('run-error')).toHaveCount(0);
  await expect(page.getByTestId('previous-run')).toHaveCount(0);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
});
