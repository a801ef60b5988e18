import { expect, test, type Page } from '@playwright/test';
import { DISPLAY_KEY } from '../web/components/display';
import { TOUR_KEY } from '../web/components/tour';
import { ISOLATED } from './servers';

// The stage (the whole allocator in one diagram) beside its panes: readable at every size, on a
// laptop without scrolling the page, on a phone, on a projector, in both themes.

async function open(page: Page, query: string, step: number) {
  await page.goto(`${ISOLATED}${query}`);
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', String(step));
  await expect(page.getByTestId('stage')).toBeVisible();
}

/** The smallest size a text of the stage is drawn at on the screen, in CSS pixels. */
function smallestText(page: Page) {
  return page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>('.stage-svg')!;
    // The drawing's scale: its width on the screen over its own units.
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    return { count: sizes.length, min: Math.min(...sizes) };
  });
}

test('at 1280 × 800 the stage and its panes fit the window, every label at least 12 px', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await open(page, '?preset=slub-cpu-partial-flush&step=38', 38);
  const fit = await page.evaluate(() => ({
    page: document.documentElement.scrollHeight - window.innerHeight,
    sideways: document.documentElement.scrollWidth - window.innerWidth,
    stage: document.querySelector('.stage-svg')!.getBoundingClientRect().width - document.querySelector('.stage-scroll')!.clientWidth,
  }));
  expect(fit.page, 'the page does not scroll').toBeLessThanOrEqual(1);
  expect(fit.sideways).toBeLessThanOrEqual(0);
  expect(fit.stage, 'the stage is laid out for its width').toBeLessThanOrEqual(0);
  const text = await smallestText(page);
  expect(text.count).toBeGreaterThan(40);
  expect(text.min).toBeGreaterThanOrEqual(12);
  // The slab the flush moved sits in node 0's card, lit; so is node 0's list_lock.
  await expect(page.locator('.stage-svg g.box.touched')).not.toHaveCount(0);
  await expect(page.locator('.stage-svg g.lock.lit')).toHaveCount(1);
});

test('zooming in draws the shown slab slot by slot; the keyboard zooms too', async ({ page }) => {
  await open(page, '?preset=slub-cpu-partial-flush&step=38', 38);
  const stage = page.getByTestId('stage');
  await expect(stage).toHaveAttribute('data-detail', 'bars');
  await expect(page.locator('.stage-svg g.box-cell')).not.toHaveCount(0); // free_area[] cells
  const bars = await page.locator('.stage-svg g.box-cell').count();
  await page.getByTestId('stage-zoom-in').click();
  await page.getByTestId('stage-zoom-in').click();
  await expect(stage).toHaveAttribute('data-zoom', '1.5');
  await expect(stage).toHaveAttribute('data-detail', 'slots');
  // kmalloc-4k has 8 objects a slab: the shown slab's 8 slots join the cells.
  await expect(page.locator('.stage-svg g.box-cell')).toHaveCount(bars + 8);
  expect((await smallestText(page)).min).toBeGreaterThanOrEqual(17);
  await page.locator('.stage-scroll').focus();
  await page.keyboard.press('-');
  await expect(stage).toHaveAttribute('data-zoom', '1.25');
  await expect(stage).toHaveAttribute('data-detail', 'bars');
  await page.getByTestId('stage-zoom-reset').click();
  await expect(stage).toHaveAttribute('data-zoom', '1');
});

test('a click on a slab in the stage shows it in the slab page pane; the tabs follow the address', async ({ page }) => {
  await open(page, '?preset=slub-cpu-partial-flush&step=38&view=buddy', 38);
  await expect(page.getByTestId('tab-buddy')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#view-buddy')).toBeVisible();
  await page.getByTestId('tab-cpu').click();
  await expect(page).toHaveURL(/view=cpu/);
  await expect(page.getByTestId('cpu-1-partial')).toBeAttached();
  // The slab at the top of cpu1's partial stack, clicked on the stage.
  await page.locator('.stage-svg g.box-slab.target').filter({ has: page.locator('rect.halo') }).first().click();
  await page.getByTestId('tab-slab').click();
  await expect(page).toHaveURL(/view=slab/);
  await expect(page.getByTestId('slab-slots')).toBeVisible();
  // The arrow keys move between the tabs.
  await page.getByTestId('tab-slab').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tab-cpu')).toHaveAttribute('aria-selected', 'true');
});

test('on a 390 px phone nothing overflows sideways, the stage comes first and the step controls stay on screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, '?preset=slub-fast-path&step=4', 4);
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(sideways).toBeLessThanOrEqual(0);
  expect((await smallestText(page)).min).toBeGreaterThanOrEqual(12);
  await page.getByTestId('stage').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('step-forward')).toBeInViewport();
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('visualizer')).toHaveAttribute('data-cursor', '5');
});

test('the display menu switches the theme and large text, and the choice is kept', async ({ page }) => {
  await open(page, '?preset=slub-fast-path&step=4', 4);
  const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const light = await background();
  await page.getByTestId('display-toggle').click();
  await page.getByTestId('theme').selectOption('dark');
  await expect(page.locator('html')).toHaveClass(/theme-dark/);
  expect(await background()).not.toBe(light);
  await page.getByTestId('large-text').check();
  await expect(page.locator('html')).toHaveClass(/large-text/);
  expect((await smallestText(page)).min).toBeGreaterThanOrEqual(17);
  await page.reload();
  await expect(page.locator('html')).toHaveClass(/theme-dark/);
  await expect(page.locator('html')).toHaveClass(/large-text/);
});

// Pictures of the stage, compared with the ones checked in (e2e/stage.spec.ts-snapshots): three
// presets at a laptop's size, a phone's and a projector's (large text).
const SIZES = [
  { name: 'laptop', width: 1280, height: 800, largeText: false },
  { name: 'phone', width: 390, height: 844, largeText: false },
  { name: 'projector', width: 1920, height: 1080, largeText: true },
] as const;
const PRESETS = [
  ['slub-fast-path', 4],
  ['slub-cpu-partial-flush', 38],
  ['slab-paths', 40],
] as const;

for (const size of SIZES) {
  test.describe(`pictures at ${size.name} size`, () => {
    test.use({
      viewport: { width: size.width, height: size.height },
      storageState: {
        cookies: [],
        origins: [{ origin: new URL(ISOLATED).origin, localStorage: [
          { name: TOUR_KEY, value: 'seen' },
          { name: DISPLAY_KEY, value: JSON.stringify({ theme: 'light', largeText: size.largeText }) },
        ] }],
      },
    });
    for (const [preset, step] of PRESETS) {
      test(`the stage of ${preset} at step ${step}`, async ({ page }) => {
        await page.emulateMedia({ reducedMotion: 'reduce' });
        await open(page, `?preset=${preset}&step=${step}`, step);
        await expect(page.getByTestId('stage')).toHaveScreenshot(`${preset}-${size.name}.png`, { maxDiffPixelRatio: 0.01, animations: 'disabled' });
      });
    }
  });
}
