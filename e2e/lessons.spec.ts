import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';

// The lessons page: the index, a lesson's text beside the player, and its anchors moving the
// player; in English and Korean.

const PLAIN = 'http://127.0.0.1:4174/';
const lessons = readdirSync('lessons', { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`lessons/${d.name}/lesson.json`))
  .map((d) => JSON.parse(readFileSync(`lessons/${d.name}/lesson.json`, 'utf8')) as { id: string; sections: { id: string; anchor: { cursor: number } | null }[] });

test('the index lists every lesson; a lesson shows its sections beside the player, and an anchor moves it', async ({ page }) => {
  await page.goto(`${PLAIN}?page=lessons`);
  for (const l of lessons) await expect(page.getByTestId(`lesson-link-${l.id}`)).toBeVisible();
  const first = [...lessons].sort((a, b) => a.id.localeCompare(b.id))[0];
  await page.getByTestId(`lesson-link-${first.id}`).click();
  await expect(page.getByTestId('lesson')).toHaveAttribute('data-lesson', first.id);
  for (const s of first.sections) await expect(page.getByTestId(`section-${s.id}`)).toBeVisible();
  await expect(page.getByTestId('lesson')).not.toContainText('{{exercise');

  const anchored = first.sections.filter((s) => s.anchor !== null);
  const last = anchored[anchored.length - 1];
  await page.getByTestId(`show-${last.id}`).click();
  await expect(page.getByTestId('lesson-player')).toHaveAttribute('src', new RegExp(`step=${last.anchor?.cursor}\\b`));
  const player = page.frameLocator('[data-testid="lesson-player"]');
  await expect(player.getByTestId('visualizer')).toHaveAttribute('data-cursor', String(last.anchor?.cursor));

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
  await box.getByTestId('answer-tid-after-free').fill('0x280');
  await box.getByTestId('check-tid-after-free').click();
  await expect(box.getByTestId('result-tid-after-free')).toContainText('Right: the simulator gives 640');
  await expect(box).toHaveAttribute('data-correct', 'true');

  // The player moves to the step the exercise starts from.
  await box.getByTestId('look-tid-after-free').click();
  await expect(page.frameLocator('[data-testid="lesson-player"]').getByTestId('visualizer')).toHaveAttribute('data-cursor', '19');

  // Another lesson, in Korean, keeps its own exercises; the progress is still there after a reload.
  await page.goto(`${PLAIN}?page=lessons&lesson=03-slub-design&lang=ko`);
  await expect(page.getByTestId('lesson-title')).toHaveText(/[\uac00-\ud7a3]/);
  await expect(page.getByTestId('exercise-flush-slabinfo')).toBeVisible();
  await page.reload();
  await page.goto(`${PLAIN}?page=lessons&lang=en`);
  await expect(page.getByTestId('score-04-fast-path-tid')).toHaveText('1 of 3 exercises');
  await page.goto(`${PLAIN}?page=lessons&lesson=04-fast-path-tid&lang=ko`);
  await expect(page.getByTestId('exercise-tid-after-free')).toHaveAttribute('data-correct', 'true');
});
