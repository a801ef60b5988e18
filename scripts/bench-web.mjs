#!/usr/bin/env node
// `npm run bench -- --web`: the visualizer in headless Chromium; prints figures, asserts
// nothing (docs/bench.md, "The visualizer").
//
//  1. JavaScript loaded before the first view: every script the page and its workers ask for
//     before the visualizer has drawn its first snapshot, gzip-compressed here (level 9).
//  2. Playing the standard large scenario (docs/scenarios/large.slab: 4 CPUs, 2 nodes, 6,000
//     live objects at the end, ~108,000 steps) at full speed for PLAY_SECONDS: the time
//     between animation frames, measured in the page with requestAnimationFrame.
//  3. Scrubbing: SCRUBS moves of the timeline scrubber to random steps of the same run; each
//     is timed in the page from the scrubber's input event until the frame that paints the
//     views at the new cursor has been rendered: the first animation frame after the views
//     show it, then a task posted from that frame, which runs once its style, layout and paint
//     are done (whether the views changed inside an animation frame or outside one).
//  4. Lighthouse (the npm package, driving the same system Chromium) on the visualizer at a step
//     of the remote-free preset, with its desktop settings and with its default mobile ones
//     (a phone's screen, a slowed processor and network): performance, accessibility and best
//     practices, with the audits that cost points.
// Runs against `vite preview` of dist/ (built first if missing), cross-origin isolated.

/* global document, window, requestAnimationFrame, HTMLInputElement, MutationObserver -- page.evaluate bodies run in the browser */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium, serve } from './browser.mjs';

const PORT = 4183;
const PLAY_SECONDS = 10;
const SCRUBS = 60;
const root = new URL('..', import.meta.url).pathname;
process.chdir(root);

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

if (!existsSync('dist/index.html') || process.argv.includes('--build')) {
  execFileSync('npx', ['vite', 'build'], { stdio: 'inherit' });
}
const base = `http://localhost:${PORT}/`;
const server = await serve('npx', ['vite', 'preview', '--port', String(PORT), '--strictPort'], base);
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();

  // 1. JavaScript before the first view: the scripts whose request left before the page
  // signalled that the visualizer had drawn its first snapshot (a mutation observer installed
  // before any script of the page runs calls back at once). Their bodies may arrive later.
  const requested = new Set();
  let firstViewAt = null;
  await page.exposeFunction('benchFirstView', () => {
    firstViewAt ??= Date.now();
  });
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      const vis = document.querySelector('[data-testid="visualizer"]');
      if (vis && vis.getAttribute('data-cursor') === '0') {
        observer.disconnect();
        window.benchFirstView();
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-cursor'] });
  });
  const onRequest = (request) => {
    if (firstViewAt === null) requested.add(request.url());
  };
  const later = new Set();
  const scripts = new Map();
  const collect = (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (!/javascript/.test(type)) return;
    if (!requested.has(response.url())) {
      later.add(new URL(response.url()).pathname);
      return;
    }
    response
      .body()
      .then((body) => scripts.set(response.url(), gzipSync(body, { level: 9 }).length))
      .catch(() => {});
  };
  context.on('request', onRequest);
  context.on('response', collect);
  await page.goto(`${base}?preset=large&step=0`);
  await page.waitForSelector('[data-testid="visualizer"][data-cursor="0"]', { timeout: 120_000 });
  await page.waitForTimeout(300);
  context.off('request', onRequest);
  context.off('response', collect);
  const jsBytes = [...scripts.values()].reduce((a, b) => a + b, 0);
  console.log(`JavaScript before the first view: ${(jsBytes / 1024).toFixed(1)} KB gzip in ${scripts.size} files (target <= 150 KB)`);
  for (const [url, bytes] of [...scripts].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${(bytes / 1024).toFixed(1).padStart(7)} KB  ${new URL(url).pathname}`);
  }
  if (later.size > 0) console.log(`  loaded after the first view: ${[...later].join(', ')}`);

  // 2. Playing at full speed.
  await page.getByTestId('speed').selectOption('max');
  const frames = await page.evaluate(async (seconds) => {
    const deltas = [];
    let last = performance.now();
    document.querySelector('[data-testid="play"]').click();
    const end = last + seconds * 1000;
    await new Promise((resolve) => {
      const frame = (now) => {
        deltas.push(now - last);
        last = now;
        if (now < end) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
    document.querySelector('[data-testid="play"]').click();
    return deltas.slice(1);
  }, PLAY_SECONDS);
  const cursorAfter = Number(await page.getByTestId('visualizer').getAttribute('data-cursor'));
  console.log(
    `\nplaying the large scenario at full speed for ${PLAY_SECONDS} s: ${frames.length} frames, ` +
      `frame time p50 ${quantile(frames, 0.5).toFixed(1)} ms, p95 ${quantile(frames, 0.95).toFixed(1)} ms, ` +
      `max ${Math.max(...frames).toFixed(1)} ms (target p95 <= 16.7 ms); ` +
      `${((100 * frames.filter((f) => f < 20).length) / frames.length).toFixed(1)} % of frames within one vsync; reached step ${cursorAfter}`,
  );

  // 3. Scrubbing to random steps.
  const steps = Number((await page.getByTestId('scrubber').getAttribute('max')) ?? '0');
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const latencies = [];
  const workerMs = [];
  for (let i = 0; i < SCRUBS; i++) {
    const target = Math.floor(random() * steps);
    const ms = await page.evaluate(async (to) => {
      const vis = document.querySelector('[data-testid="visualizer"]');
      if (vis.getAttribute('data-cursor') === String(to)) return 0;
      const input = document.querySelector('[data-testid="scrubber"]');
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
      const shown = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (vis.getAttribute('data-cursor') === String(to)) {
            observer.disconnect();
            requestAnimationFrame(() => {
              const channel = new MessageChannel();
              channel.port1.onmessage = () => resolve(performance.now());
              channel.port2.postMessage(null);
            });
          }
        });
        observer.observe(vis, { attributes: true, attributeFilter: ['data-cursor'] });
      });
      input.focus();
      setter.call(input, String(to));
      const start = performance.now();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      return (await shown) - start;
    }, target);
    latencies.push(ms);
    workerMs.push(Number(await page.getByTestId('visualizer').getAttribute('data-worker-ms')));
  }
  console.log(
    `scrubbing to ${SCRUBS} random steps of ${steps}: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, ` +
      `p95 ${quantile(latencies, 0.95).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target p95 <= 50 ms); of which the worker built the snapshot in p50 ${quantile(workerMs, 0.5).toFixed(1)} ms`,
  );

  // Lighthouse launches its own Chromium (the system one, headless, as the tests run it).
  const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const flags = '--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync';
  const dir = mkdtempSync(join(tmpdir(), 'slabscope-lighthouse-'));
  try {
    for (const preset of ['desktop', 'mobile']) {
      const out = join(dir, `${preset}.json`);
      const args = [`${base}?preset=slub-remote-free&cache=kmalloc-128&step=104`, `--chrome-path=${executable}`, `--chrome-flags=${flags}`, '--only-categories=performance,accessibility,best-practices', '--output=json', `--output-path=${out}`, '--quiet'];
      if (preset === 'desktop') args.push('--preset=desktop');
      // Lighthouse sometimes fails to record a page load ("NO_NAVSTART"): one more try, then
      // the figure is reported missing and the bench goes on.
      const attempt = () => execFileSync(join(root, 'node_modules/.bin/lighthouse'), args, { stdio: 'inherit' });
      try {
        try {
          attempt();
        } catch {
          attempt();
        }
      } catch (e) {
        console.log(`Lighthouse, ${preset}: no figures (${e instanceof Error ? e.message.split('\n')[0] : e})`);
        continue;
      }
      const report = JSON.parse(readFileSync(out, 'utf8'));
      const score = (c) => Math.round(report.categories[c].score * 100);
      console.log(`Lighthouse, ${preset}: performance ${score('performance')}, accessibility ${score('accessibility')}, best practices ${score('best-practices')} (targets >= 90, 95, 95)`);
      // The audits that cost points, with what they measured (insights without a figure left out).
      const lost = Object.values(report.audits).filter((a) => typeof a.score === 'number' && a.score < 0.9 && ['numeric', 'binary', 'metricSavings'].includes(a.scoreDisplayMode) && a.displayValue);
      for (const a of lost) console.log(`  ${a.id}: ${a.displayValue}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await browser.close();
  server.stop();
}
