// Golden drawings: a view's SVG, written out in one canonical form and compared with the file
// checked in under output/ (the way Observable Plot's test/plot.js does).
//
// Rules:
// - Canonical form: one element a line, indented; attributes sorted by name (the outermost
//   <svg> with its xmlns, so the file opens as a picture); every decimal
//   number in an attribute rounded to two places (float noise of a layout or of a transition's
//   last frame must not change the file); a transform's list written without spaces (d3's
//   interpolators end on `translate(1, 2)`, a still drawing sets `translate(1,2)`).
// - A missing golden is written (and the test passes), except under CI, where a golden that
//   was never checked in fails. `SLABSCOPE_UPDATE_GOLDEN=1` rewrites every golden.
// - A mismatch fails and leaves NAME-changed.svg beside NAME.svg, to open side by side or to
//   diff; a later match removes it. `*-changed.svg` is ignored by git.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** A path, not `new URL(…, import.meta.url)`, which Vite rewrites into a page URL under jsdom. */
const OUTPUT = join(import.meta.dirname, 'output');
const SVG_NS = 'http://www.w3.org/2000/svg';

/** `value` with each decimal number rounded to two places (and no -0). */
export function roundNumbers(value: string): string {
  return value.replace(/-?\d+\.\d+(?:e[-+]?\d+)?/gi, (n) => {
    const r = Math.round(Number(n) * 100) / 100;
    return String(Object.is(r, -0) ? 0 : r);
  });
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}

function attrValue(name: string, value: string): string {
  const rounded = roundNumbers(value);
  return name === 'transform' || name === 'patternTransform' ? rounded.replace(/\s*,\s*/g, ',').replace(/\s+/g, ' ').trim() : rounded;
}

/** `root` and everything under it in the canonical form (see the module header). */
export function serializeSvg(root: Element): string {
  const lines: string[] = [];
  const walk = (el: Element, depth: number) => {
    const pad = '  '.repeat(depth);
    // The outermost <svg> names its namespace, so that the file opens as a picture.
    const ns = depth === 0 && el.namespaceURI === SVG_NS && !el.hasAttribute('xmlns') ? [['xmlns', SVG_NS] as const] : [];
    const attrs = [...ns, ...[...el.attributes].map((a) => [a.name, attrValue(a.name, a.value)] as const)]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([n, v]) => ` ${n}="${escapeAttr(v)}"`)
      .join('');
    const tag = el.tagName;
    const children = [...el.childNodes].filter((n) => n.nodeType === n.ELEMENT_NODE || (n.nodeType === n.TEXT_NODE && n.textContent !== ''));
    if (children.length === 0) {
      lines.push(`${pad}<${tag}${attrs}/>`);
    } else if (children.every((n) => n.nodeType === n.TEXT_NODE)) {
      lines.push(`${pad}<${tag}${attrs}>${escapeText(el.textContent ?? '')}</${tag}>`);
    } else {
      lines.push(`${pad}<${tag}${attrs}>`);
      for (const n of children) {
        if (n.nodeType === n.ELEMENT_NODE) walk(n as Element, depth + 1);
        else lines.push(`${pad}  ${escapeText(n.textContent ?? '')}`);
      }
      lines.push(`${pad}</${tag}>`);
    }
  };
  walk(root, 0);
  return `${lines.join('\n')}\n`;
}

/** Compares the canonical form of `svg` with output/NAME.svg (see the module header). */
export function expectGolden(name: string, svg: Element): void {
  const actual = serializeSvg(svg);
  mkdirSync(OUTPUT, { recursive: true });
  const file = join(OUTPUT, `${name}.svg`);
  const changed = join(OUTPUT, `${name}-changed.svg`);
  const update = Boolean(process.env.SLABSCOPE_UPDATE_GOLDEN);
  if (!update && !existsSync(file) && process.env.CI) {
    expect.fail(`output/${name}.svg is missing: run with SLABSCOPE_UPDATE_GOLDEN=1 and check it in`);
  }
  if (update || !existsSync(file)) {
    writeFileSync(file, actual);
    rmSync(changed, { force: true });
    return;
  }
  const expected = readFileSync(file, 'utf8');
  if (actual === expected) {
    rmSync(changed, { force: true });
    return;
  }
  writeFileSync(changed, actual);
  expect(actual, `the drawing differs from output/${name}.svg: see output/${name}-changed.svg (SLABSCOPE_UPDATE_GOLDEN=1 accepts it)`).toBe(expected);
}
