// Completion for the scenario editor: what may come at a place in a half-written scenario,
// worked out from the text alone (no editor, no simulator), so it can be tested directly.

import { CACHE_CALLS, CALLS, DIRECTIVES, KEYWORDS, KMALLOC_CACHES, MAGIC, NO_CPU_CALLS, SWITCHES, declared } from './vocabulary';

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

  if (lineStart === 0) return { from, options: [{ label: `${MAGIC} 1`, type: 'keyword' }] };

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
  if (/^\s*switch\s+$/.test(head)) return { from, options: SWITCHES.map((s) => ({ label: s, type: 'constant' as const })) };
  // `allocator slub|slab`
  if (/^\s*allocator\s+$/.test(head)) return { from, options: ['slub', 'slab'].map((s) => ({ label: s, type: 'constant' as const })) };
  if (/^\s*profile\s+$/.test(head)) return { from, options: [{ label: 'linux-6.6', type: 'constant' }] };

  // Inside a call's parentheses: caches first where the call takes one, then names.
  const call = /\b([a-z_]+)\(([^()]*)$/.exec(head);
  if (call) {
    const firstArg = !call[2].includes(',');
    const caches = [...decl.caches, ...KMALLOC_CACHES].map((c) => ({ label: c, type: 'type' as const }));
    const names = decl.names.map((n) => ({ label: n, type: 'variable' as const }));
    return { from, options: CACHE_CALLS.has(call[1]) && firstArg ? [...caches, ...names] : [...names, ...caches] };
  }
  // `for x in LIST:`
  if (/\bin\s+$/.test(head)) return { from, options: decl.names.map((n) => ({ label: n, type: 'variable' as const })) };

  // The start of a line, or after `NAME =`, `repeat N`, `for x in L:`: calls; at the very
  // start also directives and the loop words.
  const atStart = /^\s*$/.test(head);
  const afterPrefix = /(?:=\s*|^\s*repeat\s+\S+\s+|:\s*)$/.test(head);
  if (!atStart && !afterPrefix) {
    // After a call: `on`, unless the call runs on no one CPU.
    const done = /\b([a-z_]+)\([^()]*\)\s+$/.exec(head);
    if (done && !NO_CPU_CALLS.has(done[1])) return { from, options: [{ label: 'on', type: 'keyword' }] };
    return null;
  }
  const calls = CALLS.map<Suggestion>((c) => ({
    label: c.name,
    apply: `${c.name}(`,
    type: 'function',
    detail: `(${c.args})`,
  }));
  if (!atStart) return { from, options: calls };
  return {
    from,
    options: [
      ...DIRECTIVES.map<Suggestion>((d) => ({ label: d.word, apply: d.template, type: 'keyword', detail: d.template })),
      ...KEYWORDS.filter((k) => k !== 'in' && k !== 'on').map<Suggestion>((k) => ({ label: k, apply: `${k} `, type: 'keyword' })),
      ...calls,
    ],
  };
}
