// /proc/slabinfo read back into columns, so that the view can show it as a table that fits its
// column (the kernel's text stays a click away) and mark what changed since the step before.
//
// The format (mm/slab_common.c, print_slabinfo_header() and cache_show(), v6.6; SLAB's
// slabinfo_show_stats() adds groups of its own): a version line, then a header line
//   # name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> ...
// and one line per cache, its fields in the same groups, each group after the first led by its
// label and set off by " : ".

/** A group of columns: the first has no label (name and object counts). */
export interface SlabinfoGroup {
  label: string;
  columns: string[];
}

export interface SlabinfoRow {
  name: string;
  /** Per group, its values (as printed). */
  values: string[][];
}

export interface Slabinfo {
  version: string;
  groups: SlabinfoGroup[];
  rows: SlabinfoRow[];
}

/** The file's columns and rows; null when the text is not in the kernel's format (the view then
 *  shows the text alone). */
export function parseSlabinfo(text: string): Slabinfo | null {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const version = lines[0]?.match(/^slabinfo - version: (\S+)$/)?.[1];
  const header = lines[1];
  if (!version || !header?.startsWith('# name')) return null;
  const groups = header
    .slice(1)
    .split(' : ')
    .map((part, i) => {
      const words = part.trim().split(/\s+/);
      const label = i === 0 ? '' : (words.shift() ?? '');
      if (i === 0) words.shift(); // "name"
      return { label, columns: words.map((w) => w.replace(/^<|>$/g, '')) };
    });
  const rows: SlabinfoRow[] = [];
  for (const line of lines.slice(2)) {
    const parts = line.split(' : ');
    if (parts.length !== groups.length) return null;
    const values = parts.map((part, i) => {
      const words = part.trim().split(/\s+/);
      if (i > 0) words.shift(); // the group's label
      return words;
    });
    const name = values[0].shift();
    if (!name || values.some((v, i) => v.length !== groups[i].columns.length)) return null;
    rows.push({ name, values });
  }
  return { version, groups, rows };
}

/** For each row of `now`, which of its values differ from `before`'s row of the same name (all of
 *  them for a cache that was not there), as "group:column" keys; and the names `before` had that
 *  `now` has not. */
export function slabinfoChanges(now: Slabinfo, before: Slabinfo | null): { changed: Map<string, Set<string>>; gone: string[] } {
  const changed = new Map<string, Set<string>>();
  if (!before) return { changed, gone: [] };
  const old = new Map(before.rows.map((r) => [r.name, r]));
  for (const row of now.rows) {
    const was = old.get(row.name);
    const keys = new Set<string>();
    row.values.forEach((vals, g) =>
      vals.forEach((v, c) => {
        if (was?.values[g]?.[c] !== v) keys.add(`${g}:${c}`);
      }),
    );
    if (!was) keys.add('name');
    if (keys.size) changed.set(row.name, keys);
  }
  const names = new Set(now.rows.map((r) => r.name));
  return { changed, gone: before.rows.map((r) => r.name).filter((n) => !names.has(n)) };
}
