#!/usr/bin/env node
// `npm test`: the one gate, the same locally and in CI. Sets up what is missing, then runs
// every check and every suite — even after a failure, so one run shows everything — and ends
// with one line: "N passed, N failed". Counts are individual tests where the runner reports
// them (cargo, vitest, Playwright) and one per check otherwise (fmt, clippy, builds, tsc, eslint).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);
const home = process.env.HOME ?? '';
if (home && existsSync(join(home, '.cargo/bin'))) {
  process.env.PATH = `${join(home, '.cargo/bin')}:${process.env.PATH}`;
}
const cargo = ['--manifest-path', 'wasm-core/Cargo.toml'];
// ts-rs writes the TypeScript declarations here during `cargo test --all-features`; cargo only
// reads wasm-core/.cargo/config.toml when run from inside wasm-core/, so say it explicitly.
process.env.TS_RS_EXPORT_DIR = join(root, 'web/core/generated');

function run(command, args, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    const take = (chunk) => {
      output += chunk;
      if (!quiet) process.stdout.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
    child.on('error', (error) => resolve({ code: 1, output: String(error) }));
  });
}

/** Sums cargo's "test result: ... N passed; M failed" lines. */
function cargoCounts(output) {
  let passed = 0;
  let failed = 0;
  for (const m of output.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
  return { passed, failed };
}

function jsonCounts(file, pick) {
  try {
    return pick(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

function snapshot(dir) {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

const results = [];
/** How the first failed tests failed, for the summary. */
const firstLines = [];
let stepStarted = Date.now();
function begin(title) {
  stepStarted = Date.now();
  console.log(`\n── ${title}`);
}
function record(name, counts) {
  const seconds = (Date.now() - stepStarted) / 1000;
  results.push({ name, seconds, ...counts });
  const mark = counts.failed ? 'FAIL' : 'ok';
  console.log(`\n── ${mark}: ${name} (${counts.passed} passed, ${counts.failed} failed, ${seconds.toFixed(0)} s)\n`);
}
async function check(name, command, args) {
  begin(`${name}: ${command} ${args.join(' ')}`);
  const { code } = await run(command, args);
  record(name, code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
  return code === 0;
}

const started = Date.now();
mkdirSync('test-results', { recursive: true });

if (!(await check('setup', 'bash', ['scripts/setup.sh']))) {
  console.log('\nsetup failed; nothing else can run');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

await check('cargo fmt --check', 'cargo', ['fmt', ...cargo, '--all', '--check']);
await check('cargo clippy -D warnings', 'cargo', ['clippy', ...cargo, '--all-targets', '--all-features', '--', '-D', 'warnings']);

{
  const generated = 'web/core/generated';
  const before = snapshot(generated);
  begin('cargo test');
  const { code, output } = await run('cargo', ['test', ...cargo, '--all-features']);
  const counts = cargoCounts(output);
  if (code !== 0 && counts.failed === 0) counts.failed = 1; // a build error counts as a failure
  record('cargo test', counts);
  const after = snapshot(generated);
  const stale = JSON.stringify(before) !== JSON.stringify(after);
  if (stale) console.log(`${generated} was out of date with the Rust types; it has been regenerated: commit it`);
  stepStarted = Date.now();
  record('TypeScript types match the Rust types', stale ? { passed: 0, failed: 1 } : { passed: 1, failed: 0 });
}

await check('wasm build (single-threaded)', 'bash', ['scripts/build-wasm.sh', 'st']);
await check('wasm build (threaded)', 'bash', ['scripts/build-wasm.sh', 'mt']);
await check('tsc', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
await check('eslint', 'npx', ['eslint', '--max-warnings=0', '.']);

{
  begin('vitest');
  const file = 'test-results/vitest.json';
  const { code } = await run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${file}`]);
  const counts = jsonCounts(file, (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests })) ?? {
    passed: 0,
    failed: 1,
  };
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  record('vitest', counts);
  if (counts.failed) firstLines.push(...vitestFailures(file));
}

const built = await check('vite build', 'npx', ['vite', 'build']);

{
  begin('playwright (Chromium)');
  const file = 'test-results/e2e.json';
  if (built) {
    const { code } = await run('npx', ['playwright', 'test']);
    const counts = jsonCounts(file, (r) => ({
      passed: r.stats.expected,
      failed: r.stats.unexpected + r.stats.flaky,
    })) ?? { passed: 0, failed: 1 };
    if (code !== 0 && counts.failed === 0) counts.failed = 1;
    record('playwright', counts);
    if (counts.failed) firstLines.push(...e2eFailures(file));
  } else {
    record('playwright (not run: the build failed)', { passed: 0, failed: 1 });
  }
}

/** "title: the error's first line" for each test that failed in Vitest's JSON report. */
function vitestFailures(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).testResults.flatMap((f) =>
      f.assertionResults
        .filter((a) => a.status === 'failed')
        .map((a) => `${f.name.replace(process.cwd() + '/', '')} ${a.fullName}: ${(a.failureMessages[0] ?? '').split('\n')[0]}`),
    );
  } catch {
    return [`${file} could not be read`];
  }
}

/** "title: the error's first line" for each test that failed in Playwright's JSON report. */
function e2eFailures(file) {
  const out = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const bad = (test.results ?? []).find((r) => r.status !== 'passed' && r.status !== 'skipped');
        if (!bad) continue;
        const message = stripVTControlCharacters(bad.error?.message ?? bad.status);
        out.push(`${spec.file}:${spec.line} ${spec.title}: ${message.split('\n').find((l) => l.trim()) ?? ''}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  try {
    for (const suite of JSON.parse(readFileSync(file, 'utf8')).suites ?? []) walk(suite);
  } catch {
    out.push(`${file} could not be read`);
  }
  return out;
}

// The summary is what a reader of a CI log's tail sees: when something failed, it also says how
// the first failures began and how much disk was left (a full disk fails tests far from its cause).
if (firstLines.length) {
  console.log('\n── first failures');
  for (const line of firstLines.slice(0, 8)) console.log(line.slice(0, 300));
  if (firstLines.length > 8) console.log(`… and ${firstLines.length - 8} more`);
}
if (results.some((r) => r.failed)) {
  const disk = statfsSync('.');
  console.log(`free disk here: ${((disk.bavail * disk.bsize) / 2 ** 30).toFixed(1)} GiB`);
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log('\n── summary');
for (const r of results) {
  console.log(`${r.failed ? 'FAIL' : 'ok  '}  ${r.name}: ${r.passed} passed, ${r.failed} failed (${r.seconds.toFixed(0)} s)`);
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
