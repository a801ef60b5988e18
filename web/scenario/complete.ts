// Completion for the scenario editor: what may come at a place in a half-written scenario,
// worked out from the text alone (no editor, no simulator), so it can be tested directly.

import { BOOT_CACHES, CACHE_CALLS, CALLS, DIRECTIVES, FORMAT_VERSION, GFP_NAMES, KEYWORDS, LIST_FUNCTIONS, MAGIC, CPU_REFUSED_CALLS, PRINT, PRINT_FILES, SWITCHES, SWITCHES_V2, declared } from './vocabulary';
import { PROFILE_IDS } from './profile';

export interface Suggestion {
  label: string;
  /** What is inserted (default: the label). */
  apply?: string;
  type: 'keyword' | 'function' | 'variable' | 'constant' | 'type';
  /** A short note shown beside the label: the call's arguments, a CPU's node. */
  detail?: string;
}

/** What is being completed: the word before `pos`, where it starts, and what may go there. */
export interface Completions {
  from: number;
  options: Suggestion[];
}

/** The suggestions for the word that ends at `pos` in `text`, or null where none apply. */
export function completionsAt(text: string, pos: number): Completions | null {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const before = text.slice(lineStart, pos);
  if (before.includes('#')) return null;
  const word = /[\w.-]*$/.exec(before)?.[0] ?? '';
  const from = pos - word.length;
  const head = before.slice(0, before.length - word.length);
  // Names are those of other lines: a line does not offer what it is itself declaring.
  const lineEnd = text.indexOf('\n', pos);
  const decl = declared(text.slice(0, lineStart) + (lineEnd < 0 ? '' : text.slice(lineEnd)));

  // The newest format first; format 1 stays for a file that old builds must read.
  if (lineStart === 0) {
    return {
      from,
      options: Array.from({ length: FORMAT_VERSION }, (_, i) => ({ label: `${MAGIC} ${FORMAT_VERSION - i}`, type: 'keyword' as const })),
    };
  }
  // Format 2 words are offered in a format 2 file only (format 1 refuses them): list forms,
  // print, gfp flags, `at SITE`, the RCU calls and random_kmalloc_caches.
  const v2 = decl.version >= 2;
  const caches = () => [...decl.caches, ...BOOT_CACHES].map((c) => ({ label: c, type: 'type' as const }));
  const listFunctions = () =>
    v2 ? LIST_FUNCTIONS.map<Suggestion>((f) => ({ label: f.name, apply: `${f.name}(`, type: 'function', detail: `(${f.args})` })) : [];

  // `print FILE`, `print sysfs CACHE`
  if (/^\s*print\s+sysfs\s+$/.test(head)) return { from, options: caches() };
  if (/^\s*print\s+$/.test(head)) return { from, options: PRINT_FILES.map((f) => ({ label: f, type: 'constant' as const })) };

  // `on cpuN`
  if (/\bon\s+$/.test(head)) {
    return {
      from,
      options: Array.from({ length: decl.cpus }, (_, cpu) => ({
        label: `cpu${cpu}`,
        type: 'constant' as const,
        detail: decl.nodes > 1 ? `node ${Math.floor((cpu * decl.nodes) / decl.cpus)}` : undefined,
      })),
    };
  }
  // `switch NAME`
  if (/^\s*switch\s+$/.test(head)) {
    return { from, options: SWITCHES.filter((s) => v2 || !SWITCHES_V2.has(s)).map((s) => ({ label: s, type: 'constant' as const })) };
  }
  // `allocator slub|slab`
  if (/^\s*allocator\s+$/.test(head)) return { from, options: ['slub', 'slab'].map((s) => ({ label: s, type: 'constant' as const })) };
  if (/^\s*profile\s+$/.test(head)) return { from, options: PROFILE_IDS.map((p) => ({ label: p, type: 'constant' as const })) };

  // Inside a call's parentheses: caches first where the call takes one, then names; gfp flags
  // after a kmalloc's size (and after each `|`), in format 2.
  const call = /\b([a-z_]+)\(([^()]*)$/.exec(head);
  if (v2 && call && (call[1] === 'kmalloc' || call[1] === 'kmalloc_node') && /,\s*(?:[\w]+\s*\|\s*)*$/.test(call[2])) {
    const commas = call[2].split(',').length - 1;
    if (call[1] === 'kmalloc' || commas === 1) return { from, options: GFP_NAMES.map((g) => ({ label: g, type: 'constant' as const })) };
  }
  if (call) {
    const firstArg = !call[2].includes(',');
    const names = decl.names.map((n) => ({ label: n, type: 'variable' as const }));
    return { from, options: CACHE_CALLS.has(call[1]) && firstArg ? [...caches(), ...names] : [...names, ...caches()] };
  }
  // Inside a list `[a[0], …]` (format 2), not inside an index: names.
  const literal = /=\s*(\[.*)$/.exec(head)?.[1];
  if (v2 && literal && /(?:\[|,)\s*$/.test(literal) && unclosed(literal) === 1) {
    return { from, options: decl.names.map((n) => ({ label: n, type: 'variable' as const })) };
  }
  // `for x in LIST:`
  if (/\bin\s+$/.test(head)) return { from, options: [...decl.names.map((n) => ({ label: n, type: 'variable' as const })), ...listFunctions()] };

  // The start of a line, or after `NAME =`, `repeat N`, `for x in L:`: calls; at the very
  // start also directives and the loop words.
  const atStart = /^\s*$/.test(head);
  const afterPrefix = /(?:=\s*|^\s*repeat\s+\S+\s+|:\s*)$/.test(head);
  if (!atStart && !afterPrefix) {
    // After a call: `on` (unless the call runs on no one CPU), and `at` (a call site) after a
    // kmalloc, in format 2.
    const done = /\b([a-z_]+)\([^()]*\)\s+$/.exec(head);
    if (done) {
      const kmalloc = v2 && (done[1] === 'kmalloc' || done[1] === 'kmalloc_node');
      const words = [...(CPU_REFUSED_CALLS.has(done[1]) ? [] : ['on']), ...(kmalloc ? ['at'] : [])];
      return words.length ? { from, options: words.map((k) => ({ label: k, type: 'keyword' as const })) } : null;
    }
    return null;
  }
  const calls = CALLS.filter((c) => v2 || !c.v2).map<Suggestion>((c) => ({
    label: c.name,
    apply: `${c.name}(`,
    type: 'function',
    detail: `(${(v2 && c.signature) || c.args})`,
  }));
  // After `NAME =` a list line may build a list instead (format 2).
  if (!atStart) return { from, options: /=\s*$/.test(head) ? [...calls, ...listFunctions()] : calls };
  const print = v2 ? [{ label: PRINT.word, apply: PRINT.template, type: 'keyword' as const, detail: PRINT.template }] : [];
  return {
    from,
    options: [
      ...DIRECTIVES.map<Suggestion>((d) => ({ label: d.word, apply: d.template, type: 'keyword', detail: d.template })),
      ...print,
      ...KEYWORDS.filter((k) => k !== 'in' && k !== 'on' && k !== 'at').map<Suggestion>((k) => ({ label: k, apply: `${k} `, type: 'keyword' })),
      ...calls,
    ],
  };
}

/** Brackets opened and not closed in `text`. */
function unclosed(text: string): number {
  let depth = 0;
  for (const c of text) depth += c === '[' ? 1 : c === ']' ? -1 : 0;
  return depth;
}
