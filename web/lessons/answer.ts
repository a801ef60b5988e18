// Reading an exercise's answer out of the simulator's state, and grading a student's answer
// against it: the same rules as the Rust check of every lesson (wasm-core/run/tests/exercises.rs),
// which keeps the answers stored in lesson.json equal to what the simulator computes.
//
// A path is fields separated by dots, each followed by any number of `[n]` (the n-th element)
// or `[field=value]` (the element whose field has that value): `cache.cpus[0].tid`,
// `cache.slabs[pfn=0].place.kind`.

/** The value at `path` in `value`, or undefined. */
export function atPath(value: unknown, path: string): unknown {
  let here: unknown = value;
  for (const part of path.split('.')) {
    const bracket = part.indexOf('[');
    const name = bracket < 0 ? part : part.slice(0, bracket);
    let rest = bracket < 0 ? '' : part.slice(bracket);
    if (name !== '') here = field(here, name);
    while (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      if (close < 0) return undefined;
      const selector = rest.slice(1, close);
      rest = rest.slice(close + 1);
      const eq = selector.indexOf('=');
      if (eq >= 0) {
        const [key, want] = [selector.slice(0, eq), selector.slice(eq + 1)];
        here = Array.isArray(here) ? here.find((e) => plain(field(e, key)) === want) : undefined;
      } else {
        here = Array.isArray(here) && /^[0-9]+$/.test(selector) ? here[Number(selector)] : undefined;
      }
    }
    if (here === undefined) return undefined;
  }
  return here;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

/** A value as text: numbers and strings without quotes. */
export function plain(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

function asNumber(text: string): bigint | null {
  const s = text.trim().toLowerCase();
  if (/^0x[0-9a-f]+$/.test(s)) return BigInt(s);
  if (/^[0-9]+$/.test(s)) return BigInt(s);
  return null;
}

/** Whether `given` is `expected`: numbers by value (decimal or 0x hex), else text ignoring case. */
export function grade(expected: unknown, given: string): boolean {
  const a = asNumber(plain(expected));
  const b = asNumber(given);
  if (a !== null && b !== null) return a === b;
  return plain(expected).trim().toLowerCase() === given.trim().toLowerCase();
}
