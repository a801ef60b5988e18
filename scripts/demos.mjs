#!/usr/bin/env node
// `npm run demos`: records each lesson's demo in Chromium with Playwright, in each language: a
// WebM video of the lesson page walking through its demo script, and a poster image.
//
// A demo script is data, in the lesson's lesson.json: `demo`, a list of `{ "section": id,
// "pause": ms }` (the section's anchor moves the player, then the recording holds `pause`).
// A lesson without one walks through every section that has an anchor, 3 s each.
//
// Usage: node scripts/demos.mjs [--lesson ID] [--lang en|ko] [--out DIR]
//   --out  where the files go (default dist/demos, which the built app serves: the lesson page
//          shows a lesson's video when it is there). Builds dist/ first when it is missing.
// Output: DIR/<lesson>.<lang>.webm and DIR/<lesson>.<lang>.png

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium, serve } from './browser.mjs';

const { values } = parseArgs({
  options: {
    lesson: { type: 'string', multiple: true },
    lang: { type: 'string', multiple: true },
    out: { type: 'string', default: 'dist/demos' },
    port: { type: 'string', default: '4186' },
  },
});
const root = new URL('..', import.meta.url).pathname;
process.chdir(root);

const DEFAULT_PAUSE = 3000;
const SIZE = { width: 1280, height: 800 };
const languages = values.lang ?? ['en', 'ko'];
const lessons = readdirSync('lessons', { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join('lessons', d.name, 'lesson.json')))
  .map((d) => JSON.parse(readFileSync(join('lessons', d.name, 'lesson.json'), 'utf8')))
  .filter((l) => !values.lesson || values.lesson.includes(l.id))
  .sort((a, b) => a.order - b.order);
if (lessons.length === 0) {
  console.error(`demos: no lesson ${values.lesson?.join(', ') ?? ''} under lessons/`);
  process.exit(2);
}

/** The demo script of a lesson: its own, or every anchored section. */
function script(lesson) {
  const anchored = new Map(lesson.sections.filter((s) => s.anchor).map((s) => [s.id, s.anchor]));
  const steps = lesson.demo ?? lesson.sections.filter((s) => s.anchor).map((s) => ({ section: s.id, pause: DEFAULT_PAUSE }));
  for (const s of steps) {
    if (!anchored.has(s.section)) throw new Error(`${lesson.id}: the demo shows section ${s.section}, which has no anchor`);
  }
  return steps.map((s) => ({ ...s, cursor: anchored.get(s.section).cursor, pause: s.pause ?? DEFAULT_PAUSE }));
}

if (!existsSync('dist/index.html')) execFileSync('npx', ['vite', 'build'], { stdio: 'inherit' });
const out = resolve(values.out);
mkdirSync(out, { recursive: true });
const base = `http://127.0.0.1:${values.port}/`;
const server = await serve('node', ['scripts/serve-static.mjs', '--port', values.port, 'dist'], base);
const browser = await launchChromium();
const tmp = join(out, '.recording');
try {
  for (const lesson of lessons) {
    for (const lang of languages) {
      const steps = script(lesson);
      rmSync(tmp, { recursive: true, force: true });
      const context = await browser.newContext({ viewport: SIZE, recordVideo: { dir: tmp, size: SIZE }, reducedMotion: 'no-preference' });
      const page = await context.newPage();
      const player = page.getByTestId('lesson-player');
      const showing = (cursor) => player.locator(`[data-testid="visualizer"][data-cursor="${cursor}"]`);
      await page.goto(`${base}?page=lessons&lesson=${encodeURIComponent(lesson.id)}&lang=${lang}`);
      await page.getByTestId('lesson-title').waitFor({ timeout: 60_000 });
      for (const [i, step] of steps.entries()) {
        await page.getByTestId(`show-${step.section}`).click();
        await showing(step.cursor).waitFor({ timeout: 60_000 });
        await page.locator(`#section-${step.section}`).evaluate((el) => el.scrollIntoView({ block: 'start' }));
        if (i === 0) await page.screenshot({ path: join(out, `${lesson.id}.${lang}.png`) });
        await page.waitForTimeout(step.pause);
      }
      const video = page.video();
      await context.close();
      const recorded = await video.path();
      const target = join(out, `${lesson.id}.${lang}.webm`);
      renameSync(recorded, target);
      console.log(`demos: ${lesson.id} (${lang}): ${steps.length} steps -> ${target}`);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
  await browser.close();
  server.stop();
}
