// The step narration against the simulator's Rust source: every caption key the simulator can
// emit has text in both languages, the texts use only arguments the simulator passes with that
// key, every fixed word it passes has a translation, and captionText renders real steps.
//
// Where the facts come from (read with node fs, no build and no CLI needed):
//  - caption keys and fixed words: the Rust source itself (wasm-core/sim/src and the runner's
//    wasm-core/run/src, test code excluded), by a small lexer that knows Rust comments and
//    string literals;
//  - the arguments each key is recorded with: the golden traces
//    (wasm-core/run/tests/golden/*.golden, one `N  function [path]  name=value ...` line per
//    step). They are the simulator's real output and the Rust golden test keeps them current,
//    so they show which arguments are passed *every* time, which no reading of the source can
//    do reliably (arguments are added by helpers such as load_freelist() or free_one_page(),
//    by the caller of the function that opened the step, e.g. alloc_pages() adding `pfn` to
//    __rmqueue_pcplist's step, and some only on some paths). A text may use an argument only
//    if every recorded step of its key has it.
//  - for the keys no golden scenario reaches, a static over-approximation from the source: the
//    argument names recorded in the function that names the key, in the helpers it calls that
//    open no step of their own, and in the function the key is handed to (kfree's diagnostics).
//    This catches misspelt and foreign placeholders; that such an argument is passed on every
//    path was checked by hand for those keys.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { captionText, fallbackText, kernelSourceUrl, type Caption, type CaptionArg } from './captions';
import { resources } from './resources';
import stepsEn from './steps.en.json';
import stepsKo from './steps.ko.json';
import fixture from './steps.fixture.json';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUST_SRC = [join(ROOT, 'wasm-core/sim/src'), join(ROOT, 'wasm-core/run/src')];
const GOLDEN = join(ROOT, 'wasm-core/run/tests/golden');

type Steps = Record<string, unknown> & { words: Record<string, Record<string, string>> };
const STEPS: Record<'en' | 'ko', Steps> = { en: stepsEn, ko: stepsKo };

// ---------------------------------------------------------------- reading the Rust source

interface Literal {
  start: number; // index of the opening quote
  end: number; // index after the closing quote
  value: string;
}

interface RustFile {
  path: string;
  /** The text with comments and the insides of string and char literals blanked (same
   *  length), so that brackets can be matched on it. */
  masked: string;
  literals: Literal[];
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', '"': '"', "'": "'" };

function lexRust(path: string, text: string): RustFile {
  // Test code is no part of what the simulator emits.
  const cut = text.indexOf('#[cfg(test)]');
  const src = cut >= 0 ? text.slice(0, cut) : text;
  const out = src.split('');
  const literals: Literal[] = [];
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  const isIdent = (c: string | undefined) => c !== undefined && /\w/.test(c);
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const to = end < 0 ? src.length : end;
      blank(i, to);
      i = to;
    } else if (c === '/' && src[i + 1] === '*') {
      let depth = 0;
      let j = i;
      do {
        if (src.startsWith('/*', j)) {
          depth++;
          j += 2;
        } else if (src.startsWith('*/', j)) {
          depth--;
          j += 2;
        } else j++;
      } while (depth > 0 && j < src.length);
      blank(i, j);
      i = j;
    } else if (c === 'r' && !isIdent(src[i - 1]) && /^r#*"/.test(src.slice(i, i + 260))) {
      const hashes = /^r(#*)"/.exec(src.slice(i))![1];
      const open = i + 1 + hashes.length;
      const close = src.indexOf('"' + hashes, open + 1);
      literals.push({ start: open, end: close + 1, value: src.slice(open + 1, close) });
      blank(open + 1, close);
      i = close + 1 + hashes.length;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\') {
          value += ESCAPES[src[j + 1]] ?? src[j + 1];
          j += 2;
        } else value += src[j++];
      }
      literals.push({ start: i, end: j + 1, value });
      blank(i + 1, j);
      i = j + 1;
    } else if (c === "'") {
      // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a, 'static).
      const m = /^'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'/u.exec(src.slice(i, i + 12));
      if (m) {
        blank(i + 1, i + m[0].length - 1);
        i += m[0].length;
      } else i++;
    } else i++;
  }
  return { path, masked: out.join(''), literals };
}

function rustFiles(dir: string): RustFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return rustFiles(path);
    // Test modules (`tests.rs`, `*_tests.rs`) record nothing.
    if (!e.name.endsWith('.rs') || e.name === 'tests.rs' || e.name.endsWith('_tests.rs')) return [];
    return [lexRust(path, readFileSync(path, 'utf8'))];
  });
}

/** Index of the bracket closing the one at `open` (in masked text). */
function closing(masked: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let k = open; k < masked.length; k++) {
    const c = masked[k];
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) throw new Error(`unbalanced ${c} at ${k}`);
      if (stack.length === 0) return k;
    }
  }
  throw new Error(`no closing bracket for ${open}`);
}

/** Index of the innermost `(` whose call contains `pos`, or -1. */
function enclosingParen(masked: string, pos: number): number {
  let depth = 0;
  for (let k = pos - 1; k >= 0; k--) {
    const c = masked[k];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth === 0) return c === '(' ? k : -1;
      depth--;
    }
  }
  return -1;
}

interface RustFn {
  name: string;
  file: RustFile;
  start: number; // body: from its `{`
  end: number; // to its `}`
}

interface ArgCall {
  name: string;
  words: string[]; // the other literals of a plain rec.arg(): fixed words
}

const KEY = /^step\.\w+$/;
/** `rec.arg*(…)`, or `k.arg*(…)` in the kernel paths written once for both contexts (smp). */
const ARG_CALL = /\b(?:rec|k)\s*\.\s*arg(_cache|_addr|_always|_zonelist)?\s*\(/g;
/**
 * `rec.call(function, path, key, |rec| …)`: the call that opens a step (or `self.begin` inside the
 * recorder); `k.call(function, path, key)` in the smp kernel paths, whose guard closes it (a path
 * `""` is set later with `set_path`).
 */
const BEGIN_CALL = /\b(?:rec\s*\.\s*call|k\s*\.\s*(?:call|diagnose)|self\s*\.\s*begin)\s*\($/;
/** A call that opens a step, anywhere in a body. */
const OPENS_STEP = /\b(?:rec|k)\s*\.\s*call\s*\(/;

class RustSource {
  readonly files: RustFile[];
  readonly fns: RustFn[] = [];

  constructor(dirs: string[]) {
    this.files = dirs.flatMap((dir) => rustFiles(dir));
    for (const file of this.files) {
      for (const m of file.masked.matchAll(/\bfn\s+([A-Za-z_]\w*)/g)) {
        const params = file.masked.indexOf('(', m.index);
        let k = closing(file.masked, params) + 1;
        while (k < file.masked.length && file.masked[k] !== '{' && file.masked[k] !== ';') k++;
        if (file.masked[k] === '{') this.fns.push({ name: m[1], file, start: k, end: closing(file.masked, k) });
      }
    }
  }

  literalsIn(file: RustFile, from: number, to: number): Literal[] {
    return file.literals.filter((l) => l.start > from && l.end <= to);
  }

  /** Every `rec.arg*(...)` call in a range. */
  argCalls(file: RustFile, from: number, to: number): ArgCall[] {
    // The contexts' own `arg` methods pass the names they are given on.
    if (/smp[\\/]mod\.rs$/.test(file.path)) return [];
    const body = file.masked.slice(from, to);
    return [...body.matchAll(ARG_CALL)].map((m) => {
      const open = from + m.index + m[0].length - 1;
      const lits = this.literalsIn(file, open, closing(file.masked, open));
      if (lits.length === 0 || file.masked.slice(open + 1, lits[0].start).trim() !== '') {
        throw new Error(`${file.path}: an argument name that is not a literal at ${open}`);
      }
      return { name: lits[0].value, words: m[1] === undefined ? lits.slice(1).map((l) => l.value) : [] };
    });
  }

  /** Every caption key literal, with the call it is written in. */
  keySites() {
    return this.files.flatMap((file) =>
      file.literals
        .filter((l) => KEY.test(l.value))
        .map((lit) => {
          const open = enclosingParen(file.masked, lit.start);
          const close = open < 0 ? -1 : closing(file.masked, open);
          const callee = open < 0 ? '' : (/(\w+)\s*$/.exec(file.masked.slice(0, open))?.[1] ?? '');
          const isBegin = open >= 0 && BEGIN_CALL.test(file.masked.slice(0, open + 1));
          // A step's literals are its function, path and key: the closure after them is its body.
          const body = isBegin ? file.masked.indexOf('|', open) : -1;
          const lits = open < 0 ? [] : this.literalsIn(file, open, body > open && body < close ? body : close);
          const leadingLiteral = lits.length > 0 && file.masked.slice(open + 1, lits[0].start).trim() === '';
          const fnLit = isBegin && leadingLiteral ? lits[0].value : null;
          const others = lits
            .filter((l) => l !== lit && !(fnLit !== null && l === lits[0]) && l.value !== '')
            .map((l) => l.value);
          const diagnose = open >= 0 && /\bdiagnose\s*\($/.test(file.masked.slice(0, open + 1));
          return { key: lit.value, file, pos: lit.start, open, isBegin, diagnose, callee, fnLit, paths: others };
        }),
    );
  }

  fnAt(file: RustFile, pos: number): RustFn | undefined {
    return this.fns.filter((f) => f.file === file && f.start < pos && pos < f.end).sort((a, b) => b.start - a.start)[0];
  }

  /** Argument names recorded in `fns` and in the helpers they call that open no step. */
  argsOf(fns: RustFn[]): Set<string> {
    const names = new Set<string>();
    const seen = new Set<RustFn>();
    const visit = (f: RustFn, root: boolean) => {
      const body = f.file.masked.slice(f.start, f.end);
      if (!root && OPENS_STEP.test(body)) return; // its arguments are its own step's
      if (seen.has(f)) return;
      seen.add(f);
      for (const a of this.argCalls(f.file, f.start, f.end)) names.add(a.name);
      // Only a function handed the recorder (or the context) can add arguments: `helper(rec, ...)`.
      for (const m of body.matchAll(/\b([A-Za-z_]\w*)\s*\(\s*(?:rec|k)\b/g)) {
        for (const g of this.fns.filter((x) => x.name === m[1])) visit(g, false);
      }
    };
    for (const f of fns) visit(f, true);
    return names;
  }
}

const rust = new RustSource(RUST_SRC);
const sites = rust.keySites();
const sourceKeys = [...new Set(sites.map((s) => s.key))].sort();

/** Static over-approximation of the argument names recorded with `key`. */
function staticArgs(key: string): Set<string> {
  const fns = sites
    .filter((s) => s.key === key)
    .flatMap((s) => {
      const own = rust.fnAt(s.file, s.pos);
      const handedTo = s.isBegin || !s.callee ? [] : rust.fns.filter((f) => f.name === s.callee);
      return [...(own ? [own] : []), ...handedTo];
    });
  return rust.argsOf(fns);
}

/** The micro-steps' source (wasm-core/sim/src/smp/micro.rs): their caption keys, the argument
 *  names they pass, and the retry reasons' words (`reason=…`). */
const MICRO_SRC = readFileSync(join(RUST_SRC[0], 'smp', 'micro.rs'), 'utf8');
const MICRO_KEYS = [...new Set([...MICRO_SRC.matchAll(/"micro\.(\w+)"/g)].map((m) => m[1]))].sort();
const MICRO_ARGS = new Set([...MICRO_SRC.matchAll(/\(\s*"(\w+)",/g)].map((m) => m[1]));
const REASON_WORDS = [...(/fn word\(self\)[^]*?\n {4}\}/.exec(MICRO_SRC)?.[0] ?? '').matchAll(/=> "([^"]+)"/g)].map((m) => m[1]);

/** The (argument name, fixed word) pairs the source passes. */
function sourceWords(): Set<string> {
  const pairs = new Set<string>(REASON_WORDS.map((w) => `reason=${w}`));
  for (const file of rust.files) {
    for (const a of rust.argCalls(file, 0, file.masked.length)) for (const w of a.words) pairs.add(`${a.name}=${w}`);
  }
  return pairs;
}

// ---------------------------------------------------------------- reading the golden traces

/** The kernel release a caption key narrates from: `step.slab_free_6_8` is the text of Linux
 *  6.8 and later for a step whose Linux 6.6 text is `step.slab_free`; a key without the suffix
 *  starts at 6.6. The simulator picks the key by its profile, at the same call site. */
function keySince(key: string): number {
  const m = /_(\d+)_(\d+)$/.exec(key);
  return m ? Number(m[1]) * 100 + Number(m[2]) : 606;
}

/** `linux-6.12` → 612 (a release compared as major * 100 + minor). */
function release(profile: string): number {
  const m = /^linux-(\d+)\.(\d+)$/.exec(profile);
  if (!m) throw new Error(`not a profile: ${profile}`);
  return Number(m[1]) * 100 + Number(m[2]);
}

/** Which caption key a golden step line (`function [path]`) of a run under `profile` was
 *  recorded with. */
function keyOf(fn: string, path: string, profile = 'linux-6.6'): string {
  const tiers = [
    sites.filter((s) => s.isBegin && s.fnLit === fn && s.paths.includes(path)),
    // the key handed to a helper that opens the step (kfree's diagnostic(rec, path, key, addr))
    sites.filter((s) => !s.isBegin && s.paths.includes(path)),
    // rec.call(function, path_variable, key, …)
    sites.filter((s) => s.isBegin && s.fnLit === fn && s.paths.length === 0),
  ];
  for (const tier of tiers) {
    const all = [...new Set(tier.map((s) => s.key))];
    // Versions of one caption: the newest that the profile's release has reached.
    const since = (k: string) => keySince(k);
    const reached = all.filter((k) => since(k) <= release(profile));
    const newest = Math.max(...reached.map(since));
    const keys = reached.filter((k) => since(k) === newest);
    if (keys.length > 1) throw new Error(`${fn} [${path}] could be any of ${keys.join(', ')}`);
    if (keys.length === 1) return keys[0];
  }
  throw new Error(`no caption key in the source for ${fn} [${path}]`);
}

/** The profile a golden trace was run under: its scenario's `profile` line. */
function goldenProfile(name: string): string {
  const file = name.replace(/\.golden$/, '.slab');
  // Most scenarios sit beside their trace; a few are the gallery's own (docs/scenarios).
  const path = [join(GOLDEN, file), join(ROOT, 'docs/scenarios', file)].find((p) => existsSync(p));
  if (!path) throw new Error(`no scenario for ${name}`);
  return /^profile (\S+)/m.exec(readFileSync(path, 'utf8'))?.[1] ?? 'linux-6.6';
}

/** For each key the golden traces reach: how many steps, and the arguments every one had. */
function goldenArgs(): Map<string, { steps: number; always: Set<string> }> {
  const byKey = new Map<string, { steps: number; always: Set<string> }>();
  for (const name of readdirSync(GOLDEN).filter((n) => n.endsWith('.golden'))) {
    const text = readFileSync(join(GOLDEN, name), 'utf8');
    const profile = goldenProfile(name);
    // A concurrent block's steps are its micro-steps, captioned by `micro.*` keys (each
    // micro-step's caption is checked on its own); only its diagnostics are steps of the
    // kind read here.
    const blocks = [...text.matchAll(/^--- concurrent block at line \d+: steps (\d+) to (\d+)/gm)].map((b) => [Number(b[1]), Number(b[2])]);
    const inBlock = (n: number) => blocks.some(([from, to]) => n >= from && n <= to);
    for (const line of text.split('\n')) {
      if (line.startsWith('---')) break; // /proc/slabinfo and /proc/buddyinfo follow the trace
      const m = /^\s*(\d+) {2}(\S+) \[(.*?)\](?: {2}(.*))?$/.exec(line);
      if (!m) continue; // an event line
      const [, number, fn, path, args] = m;
      if (inBlock(Number(number)) && !sites.some((s) => s.diagnose && s.fnLit === fn && s.paths.includes(path))) continue;
      const key = keyOf(fn, path, profile);
      const names = new Set([...(args ?? '').matchAll(/(?:^| )(\w+)=/g)].map((a) => a[1]));
      const seen = byKey.get(key);
      if (seen) {
        seen.steps++;
        seen.always = new Set([...seen.always].filter((n) => names.has(n)));
      } else byKey.set(key, { steps: 1, always: names });
    }
  }
  return byKey;
}

// ---------------------------------------------------------------- the tests

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]))].sort();
}

function captionKeys(steps: Steps): string[] {
  return Object.keys(steps)
    .filter((k) => k !== 'words' && k !== 'micro')
    .map((k) => `step.${k}`)
    .sort();
}

function textOf(steps: Steps, key: string): string {
  const text = steps[key.slice('step.'.length)];
  return typeof text === 'string' ? text : '';
}

describe('reading the Rust source', () => {
  it('finds the caption keys and their steps', () => {
    // A lexer or layout that broke would find few keys; there are about 75.
    expect(sourceKeys.length).toBeGreaterThan(60);
    expect(sourceKeys).toContain('step.internal');
    expect(sourceKeys).toContain('step.kfree_double_free_bug');
    expect(keyOf('get_partial_node', 'node partial')).toBe('step.get_partial_node');
    expect(keyOf('get_partial_node', 'node partial', 'linux-6.12')).toBe('step.get_partial_node_6_8');
    expect(keyOf('kfree', 'double free')).toBe('step.kfree_double_free');
    expect(keyOf('cache_alloc_refill', 'from the shared array')).toBe('step.slab_refill');
    expect(keyOf('cache_alloc_refill', 'hand out the newest object')).toBe('step.slab_refill_done');
    expect(staticArgs('step.free_to_buddy')).toEqual(new Set(['pfn', 'order', 'merged_order']));
    expect(staticArgs('step.kfree_inside_object')).toEqual(new Set(['addr']));
  });

  it('maps every step of the golden traces to a key', () => {
    const golden = goldenArgs();
    expect(golden.size).toBeGreaterThan(40);
    expect(golden.get('step.pcp_take')?.always).toEqual(new Set(['cpu', 'node', 'order', 'pfn']));
    // `pfn` only when a block was found
    expect(golden.get('step.rmqueue_buddy')?.always).toEqual(new Set(['node', 'order']));
  });
});

describe('step captions', () => {
  it('every caption key of the Rust source has text in both languages, and no other key does', () => {
    for (const lang of ['en', 'ko'] as const) {
      expect(captionKeys(STEPS[lang]), lang).toEqual(sourceKeys);
      for (const key of sourceKeys) expect(textOf(STEPS[lang], key).trim(), `${lang}: ${key}`).not.toBe('');
    }
  });

  it('English and Korean use the same placeholders', () => {
    for (const key of sourceKeys) {
      expect(placeholders(textOf(STEPS.ko, key)), key).toEqual(placeholders(textOf(STEPS.en, key)));
    }
  });

  it('a caption uses only arguments that are passed every time with its key', () => {
    const golden = goldenArgs();
    for (const key of sourceKeys) {
      const allowed = golden.get(key)?.always ?? staticArgs(key);
      for (const lang of ['en', 'ko'] as const) {
        for (const name of placeholders(textOf(STEPS[lang], key))) {
          expect(allowed.has(name), `${lang}: ${key} uses {{${name}}}; passed: ${[...allowed].join(', ')}`).toBe(true);
        }
      }
    }
  });

  it('no caption has a stray brace or an unclosed placeholder', () => {
    for (const lang of ['en', 'ko'] as const) {
      for (const key of sourceKeys) {
        const rest = textOf(STEPS[lang], key).replace(/\{\{\w+\}\}/g, '');
        expect(rest, `${lang}: ${key}`).not.toMatch(/\{\{|\}\}/);
      }
    }
  });

  it('Korean puts no particle that depends on the final sound right after a value', () => {
    // 은/는, 이/가, 을/를, 과/와, (으)로 agree with the sound a value ends in ("node 0은",
    // "node 2는"), which the text cannot know: a noun goes between ("{{cache}} cache는") or
    // the value goes in parentheses after one ("object({{object}})를").
    for (const key of sourceKeys) {
      expect(textOf(STEPS.ko, key), key).not.toMatch(/\}\}(은|는|이|가|을|를|과|와|으로|로)(?![가-힣])/);
    }
    for (const [name, ws] of Object.entries(STEPS.ko.words)) {
      for (const text of Object.values(ws)) expect(text, name).not.toMatch(/\}\}/);
    }
  });

  it('every micro-step caption of the source has text in both languages, using only its arguments', () => {
    expect(MICRO_KEYS).toContain('read_tid');
    expect(REASON_WORDS).toContain('migrated');
    for (const lang of ['en', 'ko'] as const) {
      const micro = (STEPS[lang] as unknown as { micro: Record<string, string> }).micro;
      expect(Object.keys(micro).sort(), lang).toEqual(MICRO_KEYS);
      for (const [key, text] of Object.entries(micro)) {
        for (const p of placeholders(text)) expect(MICRO_ARGS.has(p), `${lang}: micro.${key} uses {{${p}}}`).toBe(true);
      }
    }
  });

  it('every fixed word the source passes is translated in both languages, and nothing else', () => {
    const words = sourceWords();
    expect(words).toContain('deactivate=to head');
    for (const lang of ['en', 'ko'] as const) {
      const table = STEPS[lang].words;
      const have = new Set(Object.entries(table).flatMap(([name, ws]) => Object.keys(ws).map((w) => `${name}=${w}`)));
      expect([...have].sort(), lang).toEqual([...words].sort());
      for (const ws of Object.values(table)) for (const text of Object.values(ws)) expect(text.trim()).not.toBe('');
    }
  });
});

function toArg(pair: (string | number)[]): CaptionArg {
  const [name, value] = pair;
  if (pair.length !== 2 || typeof name !== 'string') throw new Error(`not a [name, value] pair: ${pair}`);
  return [name, value];
}

describe('captionText', () => {
  const t: Partial<Record<'en' | 'ko', TFunction>> = {};

  beforeAll(async () => {
    for (const lng of ['en', 'ko'] as const) {
      const instance = i18next.createInstance();
      await instance.init({
        resources,
        lng,
        fallbackLng: false,
        interpolation: { escapeValue: false },
        returnNull: false,
        showSupportNotice: false,
      });
      t[lng] = instance.getFixedT(lng);
    }
  });

  // Steps as `slabscope run FILE --trace json` printed them (events left out), so the shape
  // is the simulator's: args as [name, value] pairs.
  const steps = fixture.map((s) => ({
    function: s.function,
    caption: { key: s.caption.key, args: s.caption.args.map(toArg) } satisfies Caption,
  }));

  it('renders real steps of the simulator in both languages', () => {
    for (const lng of ['en', 'ko'] as const) {
      for (const step of steps) {
        const text = captionText(t[lng]!, step.caption);
        const where = `${lng}: ${step.caption.key}`;
        expect(text, where).not.toBe(fallbackText(step.caption));
        expect(text, where).not.toMatch(/\{\{|\}\}/);
        for (const name of placeholders(textOf(STEPS[lng], step.caption.key))) {
          const value = step.caption.args.filter(([n]) => n === name).at(-1)![1];
          const word = typeof value === 'string' ? STEPS[lng].words[name]?.[value] : undefined;
          expect(text, where).toContain(String(word ?? value));
        }
      }
    }
  });

  it('translates fixed words and leaves names, numbers and addresses as they are', () => {
    const flush = steps.find((s) => s.caption.key === 'step.flush_slab')!.caption;
    expect(captionText(t.ko!, flush)).toContain(stepsKo.words.deactivate['to head']);
    expect(captionText(t.ko!, flush)).not.toContain('to head');
    expect(captionText(t.en!, flush)).toContain(stepsEn.words.deactivate['to head']);
    const caption: Caption = {
      key: 'step.slab_free_alien',
      args: [['cache', 'full'], ['cpu', 3], ['node', 1], ['object', '0xffff888000400300']],
    };
    const text = captionText(t.en!, caption);
    expect(text).toContain('cpu3');
    expect(text).toContain('0xffff888000400300');
    // a cache that happens to be called like a word of another argument keeps its name
    expect(captionText(t.en!, { key: 'step.slab_oom', args: [['cache', 'full']] })).toContain('full');
  });

  it('marks an unknown key instead of throwing', () => {
    for (const key of ['step.no_such_step', 'step.words', 'rmqueue_bulk', '']) {
      const caption: Caption = { key, args: [['cpu', 1], ['cache', 'kmalloc-64']] };
      const text = captionText(t.en!, caption);
      expect(text).toBe(fallbackText(caption));
      expect(text).toContain('cpu=1');
      expect(text).toContain('cache=kmalloc-64');
    }
  });
});

describe('kernelSourceUrl', () => {
  it('links kernel functions to Linux 6.6 on Elixir', () => {
    expect(kernelSourceUrl('___slab_alloc')).toBe('https://elixir.bootlin.com/linux/v6.6/A/ident/___slab_alloc');
  });

  it('gives no link for pseudo functions', () => {
    expect(kernelSourceUrl('(internal)')).toBeNull();
    expect(kernelSourceUrl('')).toBeNull();
  });

  it('has a kernel identifier for every function of the golden traces but (internal)', () => {
    for (const name of readdirSync(GOLDEN).filter((n) => n.endsWith('.golden'))) {
      for (const m of readFileSync(join(GOLDEN, name), 'utf8').matchAll(/^\s*\d+ {2}(\S+) \[/gm)) {
        expect(kernelSourceUrl(m[1]) === null, m[1]).toBe(m[1] === '(internal)');
      }
    }
  });
});
