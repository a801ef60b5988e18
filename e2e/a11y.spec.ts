import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { ISOLATED } from './servers';

// axe-core over the pages a newcomer meets (a lesson with its player, the kernel files open in
// Korean among them): no violation of the WCAG 2.1 A and AA rules it checks.
for (const [name, query, ready] of [
  ['visualizer', '?preset=slub-remote-free&cache=kmalloc-128&step=104', 'visualizer'],
  ['lessons', '?page=lessons', 'lessons'],
  ['lesson', '?page=lessons&lesson=04-fast-path-tid', 'visualizer'],
  ['Korean visualizer', '?preset=bulk-free&step=40&lang=ko&view=files', 'files-slabinfo-table'],
  ['geometry', '?page=geometry', 'chart-page'],
] as const) {
  test(`the ${name} page has no accessibility violations axe finds`, async ({ page }) => {
    await page.goto(`${ISOLATED}${query}`);
    await expect(page.getByTestId(ready).first()).toBeVisible();
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`);
    expect(found).toEqual([]);
  });
}

// The same rules in the dark theme (the system's choice) on a phone's screen, with the stage,
// the run's overview and a pane open.
test('the visualizer in the dark theme on a phone has no accessibility violations axe finds', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${ISOLATED}?preset=slub-cpu-partial-flush&step=38&view=node`);
  await expect(page.getByTestId('stage')).toBeVisible();
  await expect(page.getByTestId('run-overview')).toBeVisible();
  await expect(page.getByTestId('node-panel')).toBeVisible();
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`);
  expect(found).toEqual([]);
});
