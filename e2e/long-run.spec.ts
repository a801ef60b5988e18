import { expect, test, type Page } from '@playwright/test';
import { encodeScenario } from '../web/scenario/link';
import { ISOLATED, PLAIN } from './servers';

// A heavy but valid scenario: a million kmalloc() calls on one line, well within the limits
// (docs/scenario-format.md), which keeps the simulator busy for a second or more. While it
// runs the page says how far it has got and offers Cancel; Cancel stops the run and leaves
// the person's text, and the run shown before, as they were.

const HEAVY = `slabscope-scenario 1
machine cpus=1 nodes=1 memory=256M
repeat 1000000 t[] = kmalloc(64) on cpu0
`;

async function typeScenario(page: Page, text: string) {
  const editor = page.getByTestId('editor-text');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

/** The run reports how far it has got, then the person cancels it. */
async function seeProgressAndCancel(page: Page) {
  const progress = page.getByTestId('run-progress');
  await expect(progress).toContainText('of 1,000,000 runs');
  await expect(progress).toContainText('line 3');
  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('running')).toHaveCount(0);
}

test('a long run typed in the editor shows its progress, and Cancel brings back the run shown before', async ({ page }) => {
  // Cross-origin isolated: the threaded build, whose worker runs a pool of its own.
  await page.goto(`${ISOLATED}?preset=slub-remote-free&step=50`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '50');
  await page.getByTestId('edit-toggle').click();
  await typeScenario(page, HEAVY);
  await page.getByTestId('run-draft').click();
  await seeProgressAndCancel(page);

  // The run shown before is back at its step, and it still steps.
  await expect(page.getByTestId('run-cancelled')).toContainText('the scenario shown before is back');
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '50');
  await expect(page.getByTestId('preset')).toHaveValue('slub-remote-free');
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '51');
  await expect(page.getByTestId('explain-op')).toContainText('repeat 80 r[] = kmalloc(100) on cpu0');
  // The text typed is still in the editor, and the new worker checks it.
  await expect(page.getByTestId('editor-text')).toContainText('repeat 1000000 t[] = kmalloc(64) on cpu0');
  await expect(page.getByTestId('editor-status')).toContainText('reads correctly');
});

test('a long run opened from a link can be cancelled, leaving its text in the editor', async ({ page }) => {
  const link = await encodeScenario(HEAVY);
  await page.goto(`${PLAIN}?s=${link}`);
  await seeProgressAndCancel(page);
  await expect(page.getByTestId('run-cancelled')).toContainText('Your text is kept in the editor');
  await page.getByTestId('edit-toggle').click();
  await expect(page.getByTestId('editor-text')).toContainText('repeat 1000000 t[] = kmalloc(64) on cpu0');

  // The app answers: a preset runs and is drawn.
  await page.getByTestId('preset').selectOption('slub-remote-free');
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
  await expect(page.getByTestId('run-cancelled')).toHaveCount(0);
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '1');
});
