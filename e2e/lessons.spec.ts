import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { variantIndex } from '../web/lessons/variant';
import { PLAIN } from './servers';

// The lessons page: the index, a lesson's text beside the player, and its anchors moving the
// player; in English and Korean.

const lessons = readdirSync('lessons', { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`lessons/${d.name}/lesson.json`))
  .map((d) => JSON.parse(readFileSync(`lessons/${d.name}/lesson.json`, 'utf8')) as { id: string; sections: { id: string; anchor: { cursor: number } | null }[] });

test('the index lists every lesson; a lesson shows its sections beside the player, and an anchor moves it', async ({ page }) => {
  await page.goto(`${PLAIN}?page=lessons`);
  for (const l of lessons) await expect(page.getByTestId(`lesson-link-${l.id}`)).toBeVisible();
  const [first, second] = [...lessons].sort((a, b) => a.id.localeCompare(b.id));
  // With nothing solved the path starts at the first lesson.
  await expect(page.getByTestId(`lesson-link-${first.id}`).locator('..').getByTestId('lesson-next-up')).toBeVisible();
  await page.getByTestId(`lesson-link-${first.id}`).click();
  await expect(page.getByTestId('lesson')).toHaveAttribute('data-lesson', first.id);
  await expect(page.getByTestId('lesson-prev')).toHaveCount(0);
  await page.getByTestId('lesson-next').click();
  await expect(page.getByTestId('lesson')).toHaveAttribute('data-lesson', second.id);
  await page.getByTestId('lesson-prev').click();
  await expect(page.getByTestId('lesson')).toHaveAttribute('data-lesson', first.id);
  for (const s of first.sections) await expect(page.getByTestId(`section-${s.id}`)).toBeVisible();
  await expect(page.getByTestId('lesson')).not.toContainText('{{exercise');

  const anchored = first.sections.filter((s) => s.anchor !== null);
  const last = anchored[anchored.length - 1];
  // The player is part of the page (no frame), and an anchor moves the same player: its
  // element stays, nothing is rebuilt.
  await expect(page.locator('[data-testid="lesson-player"] iframe')).toHaveCount(0);
  const player = page.getByTestId('lesson-player');
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', /\d+/);
  await player.getByTestId('visualizer').evaluate((el) => el.setAttribute('data-same-element', 'yes'));
  await page.getByTestId(`show-${last.id}`).click();
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', String(last.anchor?.cursor));
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-same-element', 'yes');
  await expect(page.getByTestId(`section-${last.id}`)).toHaveAttribute('aria-current', 'true');

  // The same lesson in Korean: the same sections, another title.
  const english = await page.getByTestId('lesson-title').textContent();
  await page.getByTestId('language').selectOption('ko');
  await expect(page.getByTestId('lesson-title')).not.toHaveText(english ?? '');
  await expect(page.getByTestId('lesson-title')).toHaveText(/[\uac00-\ud7a3]/);
  for (const s of first.sections) await expect(page.getByTestId(`section-${s.id}`)).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('lesson-title')).toHaveText(/[\uac00-\ud7a3]/);
});

test('npm run demos records a playable video and a poster, and the lesson page plays it', async ({ page }) => {
  test.setTimeout(240_000);
  const first = [...lessons].sort((a, b) => a.id.localeCompare(b.id))[0];
  execFileSync('node', ['scripts/demos.mjs', '--lesson', first.id, '--lang', 'en', '--out', 'dist/demos', '--port', '4187'], { stdio: 'inherit', timeout: 200_000 });
  const video = readFileSync(`dist/demos/${first.id}.en.webm`);
  expect(video.subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])); // EBML: WebM
  expect(video.length).toBeGreaterThan(50_000);
  expect(readFileSync(`dist/demos/${first.id}.en.png`).subarray(1, 4).toString()).toBe('PNG');

  await page.goto(`${PLAIN}?page=lessons&lesson=${first.id}&lang=en`);
  await page.locator('.lesson-demo summary').click();
  const duration = await page.getByTestId('lesson-demo').evaluate(
    (v: HTMLVideoElement) =>
      new Promise<number>((resolve, reject) => {
        if (v.readyState >= 1) resolve(v.duration);
        v.addEventListener('loadedmetadata', () => resolve(v.duration));
        v.addEventListener('error', () => reject(new Error('the video does not load')));
      }),
  );
  // WebM from a live recording may report Infinity until played through; any positive length plays.
  expect(duration).toBeGreaterThan(0);
});

test('an exercise is graded by the simulator, hints follow a wrong answer, and progress survives a reload', async ({ page }) => {
  await page.goto(`${PLAIN}?page=lessons&lesson=04-fast-path-tid&lang=en`);
  const box = page.getByTestId('exercise-tid-after-free');
  await expect(box).toBeVisible();
  await box.getByTestId('answer-tid-after-free').fill('641');
  await box.getByTestId('check-tid-after-free').click();
  await expect(box.getByTestId('result-tid-after-free')).toContainText('Not yet');
  await expect(box.getByTestId('hint-tid-after-free').first()).toBeVisible();
  // A hint's `code` shows as code, not as backticks.
  await expect(box.getByTestId('hint-tid-after-free').first()).not.toContainText('`');
  await expect(box.getByTestId('hint-tid-after-free').first().locator('code')).toHaveText('kmem_cache_cpu');
  await box.getByTestId('answer-tid-after-free').fill('0x280');
  await box.getByTestId('check-tid-after-free').click();
  await expect(box.getByTestId('result-tid-after-free')).toContainText('Right: the simulator gives 640');
  await expect(box).toHaveAttribute('data-correct', 'true');

  // The player moves to the step the exercise starts from.
  await box.getByTestId('look-tid-after-free').click();
  await expect(page.getByTestId('lesson-player').getByTestId('visualizer')).toHaveAttribute('data-cursor', '19');
  // The view it names comes into sight, and so do the step counter and the controls.
  await expect(page.getByTestId('lesson-player').getByTestId('position')).toBeInViewport();
  await expect(page.getByTestId('lesson-player').getByTestId('step-forward')).toBeInViewport();

  // Another lesson, in Korean, keeps its own exercises; the progress is still there after a reload.
  await page.goto(`${PLAIN}?page=lessons&lesson=03-slub-design&lang=ko`);
  await expect(page.getByTestId('lesson-title')).toHaveText(/[\uac00-\ud7a3]/);
  await expect(page.getByTestId('exercise-flush-slabinfo')).toBeVisible();
  await page.reload();
  await page.goto(`${PLAIN}?page=lessons&lang=en`);
  await expect(page.getByTestId('score-04-fast-path-tid')).toHaveText('1 of 5 exercises');
  await page.goto(`${PLAIN}?page=lessons&lesson=04-fast-path-tid&lang=ko`);
  await expect(page.getByTestId('exercise-tid-after-free')).toHaveAttribute('data-correct', 'true');
});

test('an answer is chosen from a list, or picked by a click in the player; a seed gives a variant the grader holds to', async ({ page }) => {
  // Choices: in lesson 05 the slab taken from the node partial list becomes the CPU slab.
  await page.goto(`${PLAIN}?page=lessons&lesson=05-slow-paths&lang=en`);
  const choices = page.getByTestId('choices-node-partial-source');
  await choices.getByLabel(/node_partial/).check();
  await page.getByTestId('check-node-partial-source').click();
  await expect(page.getByTestId('result-node-partial-source')).toContainText('Not yet');
  await choices.getByLabel(/cpu_slab/).check();
  await page.getByTestId('check-node-partial-source').click();
  await expect(page.getByTestId('result-node-partial-source')).toContainText('Right: the simulator gives cpu_slab');

  // An answer read from a /sys/kernel/slab file: partial's N0= after cpu1's flush.
  await page.goto(`${PLAIN}?page=lessons&lesson=13-reading-slabinfo&lang=en`);
  await page.getByTestId('answer-after-flush').fill('0');
  await page.getByTestId('check-after-flush').click();
  await expect(page.getByTestId('result-after-flush')).toContainText('Not yet');
  await page.getByTestId('answer-after-flush').fill('1');
  await page.getByTestId('check-after-flush').click();
  await expect(page.getByTestId('result-after-flush')).toContainText('Right: the simulator gives 1');

  // A seed whose variant of lesson 04's again-object frees another object than the text's a[3]:
  // a[1], a[2] or a[0] for variants 1, 2, 3 (kmalloc-128 objects 0x80 apart from the slab's start).
  const seed = [...Array(50).keys()].map((n) => n + 1).find((n) => variantIndex(n, '04-fast-path-tid', 'again-object', 3) > 0) as number;
  const index = variantIndex(seed, '04-fast-path-tid', 'again-object', 3);
  const expected = ['0xffff888000000080', '0xffff888000000100', '0xffff888000000000'][index - 1];
  await page.goto(`${PLAIN}?page=lessons&lesson=04-fast-path-tid&lang=en&seed=${seed}`);
  await expect(page.getByTestId('lesson-seed')).toContainText(`Seed ${seed}`);
  const box = page.getByTestId('exercise-again-object');
  await expect(box.getByTestId('variant-again-object')).toHaveAttribute('data-variant', String(index));
  await expect(box.getByTestId('variant-again-object').locator('.variant-out')).toHaveText('− kfree(a[3]) on cpu0\n');
  await expect(box.getByTestId('variant-again-object').locator('.variant-in')).toHaveText(/^\+ kfree\(a\[[012]\]\) on cpu0\n$/);

  // The lesson's own answer is not this student's.
  await box.getByTestId('answer-again-object').fill('0xffff888000000180');
  await box.getByTestId('check-again-object').click();
  await expect(box.getByTestId('result-again-object')).toContainText('Not yet');

  // Pick: the player opens the variant at the exercise's step; a click on the object answers.
  await box.getByTestId('pick-again-object').click();
  await expect(box.getByTestId('pick-again-object')).toHaveAttribute('aria-pressed', 'true');
  const player = page.getByTestId('lesson-player');
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', '11');
  await player.getByTestId('slab-text-toggle').click();
  await player.getByTestId('slab-slots').getByTestId('slot-addr').filter({ hasText: expected }).getByRole('button').click();
  await expect(box.getByTestId('answer-again-object')).toHaveValue(expected);
  await box.getByTestId('check-again-object').click();
  await expect(box.getByTestId('result-again-object')).toContainText(`Right: the simulator gives ${expected}`);

  // The seed stays after a reload without the link; a bad seed is refused and changes nothing.
  await page.goto(`${PLAIN}?page=lessons&lang=en`);
  await expect(page.getByTestId('seed-state')).toContainText(`Seed ${seed}`);
  await page.getByTestId('seed-input').fill('0');
  await page.getByTestId('seed-set').click();
  await expect(page.getByTestId('seed-bad')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('seed-state')).toContainText(`Seed ${seed}`);
  await page.getByTestId('seed-clear').click();
  await expect(page.getByTestId('seed-state')).toContainText('No seed');

  // A slab is picked too: the slab on top of cpu1's partial stack heads the node list after the drain.
  await page.goto(`${PLAIN}?page=lessons&lesson=07-partial-lists&lang=en`);
  await page.getByTestId('pick-drain-head').click();
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', '90');
  // Every slab is on the stage; its text alternative is the CPU pane's table.
  await player.getByTestId('tab-cpu').click();
  await player.getByTestId('cpu-panel-text-toggle').click();
  await player.getByTestId('cpu-1-partial').locator('button[data-pfn="8"]').click();
  await expect(page.getByTestId('answer-drain-head')).toHaveValue('8');
  await page.getByTestId('check-drain-head').click();
  await expect(page.getByTestId('result-drain-head')).toContainText('Right: the simulator gives 8');
});

test('an exercise graded on a schedule: the micro-step after which a cmpxchg was bound to fail, picked in the CPU lanes', async ({ page }) => {
  // Lesson 04 runs the ABA race with the tid (aba-tid.slab): task A reads c->tid at step 7; an
  // interrupt's allocation changes cpu0's (c->freelist, c->tid) at step 15; A's cmpxchg fails at 29.
  await page.goto(`${PLAIN}?page=lessons&lesson=04-fast-path-tid&lang=en`);
  const player = page.getByTestId('lesson-player');
  await page.getByTestId('show-aba-tid').click();
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', '29');
  // The explain panel names the step that made the cmpxchg fail, and goes there.
  await player.getByTestId('explain-retry').getByRole('button').click();
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', '15');

  const box = page.getByTestId('exercise-bound-to-fail');
  await box.getByTestId('pick-bound-to-fail').click();
  await expect(box.getByTestId('pick-bound-to-fail')).toHaveAttribute('aria-pressed', 'true');
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', '10');
  // A wrong pick first: step 9 (A's read of X's free pointer).
  const lanes = player.getByTestId('cpu-lanes');
  // The pick opened the CPU lanes' pane: its lanes come from the simulator.
  await expect(lanes.locator('details > summary').first()).toBeVisible();
  for (const summary of await lanes.locator('details > summary').all()) await summary.click();
  await lanes.getByRole('button', { name: 'step 9', exact: true }).click();
  await expect(box.getByTestId('answer-bound-to-fail')).toHaveValue('9');
  await box.getByTestId('check-bound-to-fail').click();
  await expect(box.getByTestId('result-bound-to-fail')).toContainText('Not yet');
  await lanes.getByRole('button', { name: 'step 15', exact: true }).click();
  await expect(box.getByTestId('answer-bound-to-fail')).toHaveValue('15');
  await box.getByTestId('check-bound-to-fail').click();
  await expect(box.getByTestId('result-bound-to-fail')).toContainText('Right: the simulator gives 15');
});

test('a lesson embeds whole with embed=1: its text, exercises and player, without the site header', async ({ page }) => {
  await page.goto(`${PLAIN}?page=lessons&lesson=04-fast-path-tid&lang=ko&embed=1`);
  await expect(page.getByTestId('embed')).toBeVisible();
  await expect(page.getByTestId('nav-lessons')).toHaveCount(0);
  await expect(page.getByTestId('lesson-title')).toHaveText(/[\uac00-\ud7a3]/);
  await expect(page.getByTestId('lesson-player').getByTestId('visualizer')).toBeVisible();
  await page.getByTestId('answer-tid-after-free').fill('640');
  await page.getByTestId('check-tid-after-free').click();
  await expect(page.getByTestId('result-tid-after-free')).toContainText('640');
  await expect(page.getByTestId('exercise-tid-after-free')).toHaveAttribute('data-correct', 'true');
  await expect(page.getByTestId('open-full')).toHaveAttribute('href', /page=lessons&lesson=04-fast-path-tid/);
});
