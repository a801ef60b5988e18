import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { encodeScenario } from '../web/scenario/link';
import { cliTrace } from './cli';
import { PLAIN } from './servers';

// The scenario editor, share links, files and the saved draft, in a real Chromium against the
// built app (the plain server: no cross-origin isolation, so the single-threaded build).


const BAD = `slabscope-scenario 1
machine cpus=2 nodes=1 memory=1M
a = kmalloc(64) on cpu0
kfree(a) on cpu9
`;

async function cursor(page: Page): Promise<number> {
  return Number(await page.getByTestId('visualizer').getAttribute('data-cursor'));
}

async function typeScenario(page: Page, text: string) {
  const editor = page.getByTestId('editor-text');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

test('write a scenario, see its error inline, fix it, run it, share it and open the link elsewhere', async ({ page, browser }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${PLAIN}?preset=slub-remote-free&step=0`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
  await page.getByTestId('edit-toggle').click();
  await typeScenario(page, BAD);

  // The simulator's parse error, where it is and what to do, in the page's language.
  await expect(page.getByTestId('editor-error-where')).toHaveText(/line 4, column \d+/);
  await expect(page.getByTestId('editor-error')).toContainText('cpu9');
  await expect(page.locator('.cm-lintRange-error')).toHaveCount(1);
  await page.getByTestId('language').selectOption('ko');
  await expect(page.getByTestId('editor-error-where')).toHaveText(/4행 \d+열/);
  await page.getByTestId('language').selectOption('en');

  // Fixed, it reads; run, it replaces the preset.
  await typeScenario(page, BAD.replace('cpu9', 'cpu1'));
  await expect(page.getByTestId('editor-status')).toContainText('reads correctly');
  // The palette writes a line as if typed.
  await page.getByTestId('palette-call').selectOption('kmalloc');
  await page.getByTestId('palette-arg-0').fill('32');
  await page.getByTestId('palette-cpu').selectOption('1');
  await page.getByTestId('palette-target').fill('b');
  await expect(page.getByTestId('palette-line')).toHaveText('b = kmalloc(32) on cpu1');
  await page.getByTestId('palette-add').click();
  await expect(page.getByTestId('editor-text')).toContainText('b = kmalloc(32) on cpu1');
  await expect(page.getByTestId('editor-status')).toContainText('reads correctly');
  await page.getByTestId('run-draft').click();
  await expect(page.getByTestId('preset')).toHaveValue('');
  await page.getByTestId('last').click();
  await expect.poll(() => cursor(page)).toBeGreaterThan(2);
  const end = await cursor(page);

  // The share link carries the scenario and the step.
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-link').inputValue();
  expect(link).toMatch(/[?&]s=1\.[A-Za-z0-9_-]+/);
  expect(link).toContain(`step=${end}`);

  // A fresh browser context (nothing saved) lands on the same step of the same scenario.
  const other = await browser.newContext();
  const fresh = await other.newPage();
  await fresh.goto(link);
  await expect(fresh.getByTestId('visualizer')).toHaveAttribute('data-cursor', String(end));
  await expect(fresh.getByTestId('explain-op')).toContainText('b = kmalloc(32) on cpu1');
  await fresh.getByTestId('edit-toggle').click();
  await expect(fresh.getByTestId('editor-text')).toContainText('kfree(a) on cpu1');
  await expect(fresh.getByTestId('editor-text')).toContainText('b = kmalloc(32) on cpu1');
  await other.close();
});

test('the draft survives a reload, and a bad link neither opens nor loses it', async ({ page }) => {
  // The page opened with no scenario in its address comes back to the last one, at its step.
  await page.goto(`${PLAIN}?preset=slub-remote-free&step=30`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '30');
  await page.goto(PLAIN);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '30');
  await expect(page.getByTestId('preset')).toHaveValue('slub-remote-free');

  await page.goto(`${PLAIN}?preset=bulk-free&step=0`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
  await page.getByTestId('edit-toggle').click();
  await typeScenario(page, '# my own draft\nslabscope-scenario 1\n');
  await page.waitForTimeout(600);
  await page.reload();
  await page.getByTestId('edit-toggle').click();
  await expect(page.getByTestId('editor-text')).toContainText('# my own draft');

  // A truncated link: a message in the page's language, the app still usable, the draft intact.
  await page.goto(`${PLAIN}?s=1.AAAA&lang=ko`);
  await expect(page.getByTestId('link-error')).toBeVisible();
  await expect(page.getByTestId('link-error')).toContainText('링크');
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', /\d+/);
  await page.getByTestId('edit-toggle').click();
  await expect(page.getByTestId('editor-text')).toContainText('# my own draft');

  // A link whose scenario parses but cannot run: the reason, in the page's language.
  const cannotRun = await encodeScenario('slabscope-scenario 1\nmachine cpus=1\ncache_reap() on cpu0\n');
  await page.goto(`${PLAIN}?s=${cannotRun}&lang=ko`);
  await expect(page.getByTestId('run-error')).toContainText('3행: cache_reap은(는) SLUB에 없습니다');

  // Script in a link is text, never markup.
  await page.goto(`${PLAIN}?s=1.%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E`);
  await expect(page.getByTestId('link-error')).toHaveAttribute('data-key', 'link.encoding');
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
});

test('a scenario saves as a .slab file and opens from one', async ({ page }, testInfo) => {
  await page.goto(`${PLAIN}?preset=slub-remote-free&step=0`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '0');
  // Saving, opening and the trace are in the File menu, which closes when one is chosen.
  await page.getByTestId('file-toggle').click();
  const saving = page.waitForEvent('download');
  await page.getByTestId('save-file').click();
  const file = await saving;
  expect(file.suggestedFilename()).toBe('slub-remote-free.slab');
  const path = testInfo.outputPath('saved.slab');
  await file.saveAs(path);
  expect(readFileSync(path, 'utf8')).toBe(readFileSync('docs/scenarios/slub-remote-free.slab', 'utf8'));

  // The trace is the document the command line prints.
  await expect(page.getByTestId('export-trace')).toBeHidden();
  await page.getByTestId('file-toggle').click();
  const tracing = page.waitForEvent('download');
  await page.getByTestId('export-trace').click();
  const trace = await tracing;
  expect(trace.suggestedFilename()).toBe('slub-remote-free.trace.json');
  const tracePath = testInfo.outputPath('trace.json');
  await trace.saveAs(tracePath);
  expect(JSON.parse(readFileSync(tracePath, 'utf8'))).toEqual(cliTrace('docs/scenarios/slub-remote-free.slab'));

  // The gallery lists every preset with its description.
  await page.getByTestId('gallery-toggle').click();
  await expect(page.getByTestId('gallery').locator('li')).toHaveCount(await page.getByTestId('preset').locator('option[value]:not([value=""])').count());
  await page.getByTestId('gallery-bulk-free').click();
  await expect(page.getByTestId('preset')).toHaveValue('bulk-free');

  await page.getByTestId('file-input').setInputFiles({
    name: 'mine.slab',
    mimeType: 'text/plain',
    buffer: Buffer.from('slabscope-scenario 1\nmachine cpus=1 nodes=1 memory=1M\nx = kmalloc(32) on cpu0\n'),
  });
  await expect(page.getByTestId('scenario-notice')).toContainText('mine.slab');
  await expect(page.getByTestId('preset')).toHaveValue('');
  await expect(page.getByTestId('editor-text')).toContainText('x = kmalloc(32) on cpu0');
  await page.getByTestId('last').click();
  await expect(page.getByTestId('explain-op')).toContainText('x = kmalloc(32) on cpu0');

  // A file dropped on the page opens the same way.
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.items.add(new File(['slabscope-scenario 1\nmachine cpus=1 nodes=1 memory=1M\ndropped = kmalloc(48) on cpu0\n'], 'dropped.slab', { type: 'text/plain' }));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: data, cancelable: true }));
  });
  await expect(page.getByTestId('scenario-notice')).toContainText('dropped.slab');
  await expect(page.getByTestId('editor-text')).toContainText('dropped = kmalloc(48) on cpu0');
});

test('embed mode plays in an iframe of a page without cross-origin isolation and links to the full page', async ({ page }) => {
  await page.setContent(
    `<!doctype html><title>A blog post</title><p>Watch SLUB free remotely:</p>
     <iframe id="player" src="${PLAIN}?embed=1&preset=slub-remote-free&step=100" width="1200" height="800" title="Slabscope"></iframe>`,
  );
  const frame = page.frameLocator('#player');
  await expect(frame.getByTestId('embed')).toBeVisible();
  await expect(frame.getByTestId('visualizer')).toHaveAttribute('data-cursor', '100');
  // Only the player: no editor, no presets, no navigation.
  await expect(frame.getByTestId('edit-toggle')).toHaveCount(0);
  await expect(frame.getByTestId('nav-geometry')).toHaveCount(0);
  await frame.getByTestId('step-forward').click();
  await expect(frame.getByTestId('visualizer')).toHaveAttribute('data-cursor', '101');
  expect(await page.frame({ url: /embed=1/ })?.evaluate(() => window.crossOriginIsolated)).toBe(false);
  // The embed says which build it runs, and why.
  await expect(frame.getByTestId('build-mode')).toContainText('Single-threaded build (the page is not cross-origin isolated');
  await expect(frame.getByTestId('build-mode')).toHaveAttribute('data-threaded', 'false');
  // "Open in Slabscope" carries the state of the moment it is followed, without embed.
  const open = frame.getByTestId('open-full');
  await expect
    .poll(async () => {
      await open.blur();
      await open.focus();
      return (await open.getAttribute('href')) ?? '';
    })
    .toMatch(/step=101/);
  const href = (await open.getAttribute('href')) ?? '';
  expect(href).toContain('preset=slub-remote-free');
  expect(href).not.toContain('embed=');
});

test('a crash of the simulator is reported, the worker restarted, and nothing is lost', async ({ page }) => {
  await page.goto(`${PLAIN}?preset=slub-remote-free&step=50`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '50');
  await page.getByTestId('edit-toggle').click();
  await typeScenario(page, '# typed before the crash\nslabscope-scenario 1\n');
  await page.evaluate(() => (window as unknown as { slabscopeTest: { crashSimulator: () => void } }).slabscopeTest.crashSimulator());
  await expect(page.getByTestId('sim-restarted')).toContainText('restarted');
  // The same run at the same step, and it still steps.
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '50');
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '51');
  await expect(page.getByTestId('explain-op')).toContainText('repeat 80 r[] = kmalloc(100) on cpu0');
  await expect(page.getByTestId('editor-text')).toContainText('# typed before the crash');
  // The new worker parses too.
  await typeScenario(page, 'slabscope-scenario 1\nmachine cpus=1\nkfree(y) on cpu0\n');
  await expect(page.getByTestId('editor-error')).toBeVisible();
});

test('a view exports as SVG and PNG, and a range of steps as a WebM video', async ({ page }, testInfo) => {
  await page.goto(`${PLAIN}?preset=slub-remote-free&cache=kmalloc-128&step=104`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '104');
  // Folded until asked for.
  await expect(page.getByTestId('export-view')).toBeHidden();
  await page.getByTestId('export-toggle').click();
  await page.getByTestId('export-view').selectOption('slab');
  const saved = async (button: string) => {
    const waiting = page.waitForEvent('download');
    await page.getByTestId(button).click();
    const file = await waiting;
    const path = testInfo.outputPath(file.suggestedFilename());
    await file.saveAs(path);
    return { name: file.suggestedFilename(), bytes: readFileSync(path) };
  };
  const svg = await saved('export-svg');
  expect(svg.name).toBe('slabscope-slab-104.svg');
  const text = svg.bytes.toString('utf8');
  expect(text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(text).toContain('<image '); // the slot grid and the strip, from their canvases
  expect(text).toContain('slab-&gt;freelist'); // the header's facts and the pointers' labels
  expect(text).not.toContain('Show as table');
  const png = await saved('export-png');
  expect(png.name).toBe('slabscope-slab-104.png');
  expect(png.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

  await page.getByTestId('export-from').fill('100');
  await page.getByTestId('export-to').fill('103');
  const video = await saved('export-video');
  expect(video.name).toBe('slabscope-slab-100-103.webm');
  expect(video.bytes.subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])); // EBML: a WebM file
  expect(video.bytes.length).toBeGreaterThan(1000);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '103');
});
