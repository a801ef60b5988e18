// Layout of the sheaves view (6.18+): every CPU's sheaves and every node's barn for the shown
// cache, each sheaf drawn whole as a stack of object slots. One snapshot and a width in,
// positioned marks out (marks.ts), drawn by marksDraw.ts like the stage.
//
// - A sheaf (`struct slab_sheaf`) lies on its side: `objects[0]` on the left, `objects[size - 1]`
//   (the top: the next object `alloc_from_pcs()` hands out, where `free_to_pcs()` puts the next
//   free) marked, then its free room up to `capacity` as dashed empty slots. A sheaf wider than
//   the view wraps.
// - Per CPU (`s->cpu_sheaves`): `main`, `spare` and `rcu_free`, and whether a task of the CPU
//   holds its `local_trylock()`.
// - Per node (`n->barn`): `barn->lock`, the full and the empty sheaves against
//   `MAX_FULL_SHEAVES` and `MAX_EMPTY_SHEAVES`.
// - Sheaves a task holds with the lock dropped (a refill or a flush in progress), and `rcu_free`
//   sheaves submitted with `call_rcu()`, waiting for their grace period.
//
// A sheaf's box is `sheaf-ID` and an object's `obj-ADDR`, as on the stage, so a sheaf the barn
// takes from a CPU moves there and an object handed out leaves its slot.

import type { SheafView } from '../core/generated/SheafView';
import type { Snapshot } from '../core/generated/Snapshot';
import type { Label, Marks } from './marks';
import { boxMark, emptyMarks, label, literal, shortAddr } from './marks';
import { slotStyle } from './palette';

const PAD = 10;
const LINE = 20;
const SLOT = 20;
const SLOT_GAP = 3;

export interface SheavesScene {
  cacheName: string | null;
  /** 0: the cache has no sheaves (before 6.18, or a 6.18 cache that did not ask for them). */
  capacity: number;
  marks: Marks;
  /** Per CPU and per node, in the order drawn, for the text alternative. */
  cpus: { cpu: number; node: number; locked: boolean; sheaves: { where: string; sheaf: SheafView | null }[] }[];
  nodes: { node: number; heldBy: number | null; full: SheafView[]; empty: SheafView[]; maxFull: number; maxEmpty: number }[];
  held: SheafView[];
  /** `rcu_free` sheaves submitted with `call_rcu()`, waiting for their grace period. */
  rcu: SheafView[];
}

export function layoutSheaves(snapshot: Snapshot, width: number): SheavesScene {
  const cache = snapshot.cache;
  const marks = emptyMarks();
  marks.width = Math.max(280, Math.floor(width));
  const scene: SheavesScene = { cacheName: cache?.name ?? null, capacity: cache?.sheaf_capacity ?? 0, marks, cpus: [], nodes: [], held: [], rcu: [] };
  if (!cache || cache.sheaf_capacity === 0) return scene;
  const touched = new Set(snapshot.transient.objects);
  const text = (id: string, x: number, y: number, l: Label, role: string, anchor: 'start' | 'end' = 'start', emphasis = false) =>
    marks.texts.push({ id, x, y, label: l, anchor, role, emphasis });
  let y = PAD;

  /** One sheaf under its name; returns the y below it. */
  const sheaf = (id: string, where: string, sh: SheafView | null, top: number): number => {
    text(`${id}-name`, PAD, top + LINE * 0.75, literal(where), 'mono');
    if (!sh) {
      text(`${id}-null`, marks.width - PAD, top + LINE * 0.75, literal('NULL'), 'mono', 'end');
      return top + LINE + 4;
    }
    text(`${id}-size`, marks.width - PAD, top + LINE * 0.75, label('sheavesView.size', { size: sh.objects.length, capacity: sh.capacity }), 'note', 'end');
    const sy = top + LINE + 2;
    const perRow = Math.max(1, Math.floor((marks.width - 2 * PAD + SLOT_GAP) / (SLOT + SLOT_GAP)));
    const rows = Math.max(1, Math.ceil(sh.capacity / perRow));
    marks.boxes.push(
      boxMark({ id: `sheaf-${sh.id}`, x: PAD - 3, y: sy - 3, w: Math.min(sh.capacity, perRow) * (SLOT + SLOT_GAP) + 3, h: rows * (SLOT + SLOT_GAP) + 3, kind: 'frame', fill: 'none', stroke: '#9fb7ac' }),
    );
    for (let i = 0; i < sh.capacity; i++) {
      const x = PAD + (i % perRow) * (SLOT + SLOT_GAP);
      const by = sy + Math.floor(i / perRow) * (SLOT + SLOT_GAP);
      const addr = sh.objects[i];
      if (addr === undefined) {
        marks.boxes.push(boxMark({ id: `${id}-e${i}`, x, y: by, w: SLOT, h: SLOT, kind: 'cell', fill: '#ffffff', stroke: '#c3c9d1', dash: '2 2' }));
        continue;
      }
      const isTop = i === sh.objects.length - 1;
      marks.boxes.push(
        boxMark({ id: `obj-${addr}`, x, y: by, w: SLOT, h: SLOT, kind: 'object', fill: slotStyle.sheaf.fill, highlight: touched.has(addr), glyph: isTop ? '▲' : '', target: { kind: 'object', addr } }),
      );
    }
    let bottom = sy + rows * (SLOT + SLOT_GAP);
    if (sh.objects.length > 0) {
      text(`${id}-top`, PAD, bottom + LINE * 0.7, label('sheavesView.top', { addr: shortAddr(sh.objects[sh.objects.length - 1], 6) }), 'mono');
      bottom += LINE;
    }
    return bottom + 6;
  };

  for (const c of cache.cpus) {
    if (c.kind !== 'slub' || !c.sheaves) continue;
    const pcs = c.sheaves;
    text(`cpu-${c.cpu}-title`, PAD, y + LINE * 0.8, label('sheavesView.cpu', { cpu: c.cpu, node: c.node }), 'title');
    text(`cpu-${c.cpu}-lock`, marks.width - PAD, y + LINE * 0.8, label(pcs.locked ? 'sheavesView.locked' : 'sheavesView.unlocked'), pcs.locked ? 'word' : 'note', 'end', pcs.locked);
    y += LINE + 6;
    const list: { where: string; sheaf: SheafView | null }[] = [
      { where: 'pcs->main', sheaf: pcs.main },
      { where: 'pcs->spare', sheaf: pcs.spare },
    ];
    if (pcs.rcu_free) list.push({ where: 'pcs->rcu_free', sheaf: pcs.rcu_free });
    for (const e of list) y = sheaf(`cpu-${c.cpu}-${e.where.slice(5)}`, e.where, e.sheaf, y);
    scene.cpus.push({ cpu: c.cpu, node: c.node, locked: pcs.locked, sheaves: list });
    y += 6;
  }
  for (const n of cache.nodes) {
    if (n.kind !== 'slub' || !n.barn) continue;
    const b = n.barn;
    const lit = b.held_by !== null;
    text(`node-${n.node}-title`, PAD, y + LINE * 0.8, label('sheavesView.barn', { node: n.node }), 'title');
    marks.locks.push({ id: `node-${n.node}-barn-lock`, x: marks.width - PAD - 150, y: y + 2, lit });
    text(`node-${n.node}-lock`, marks.width - PAD, y + LINE * 0.8, lit ? label('nodeView.lockHeldBy', { cpu: b.held_by ?? 0 }) : label('stage.lockFree'), 'note', 'end', lit);
    y += LINE + 6;
    for (const [name, list, max] of [
      ['barn->sheaves_full', b.full, b.max_full],
      ['barn->sheaves_empty', b.empty, b.max_empty],
    ] as const) {
      text(`node-${n.node}-${name}`, PAD, y + LINE * 0.75, literal(name), 'mono');
      text(`node-${n.node}-${name}-n`, marks.width - PAD, y + LINE * 0.75, label('stage.barnCount', { count: list.length, max }), 'note', 'end');
      y += LINE + 4;
      list.forEach((sh, i) => {
        y = sheaf(`node-${n.node}-${name}-${i}`, `#${i + 1}`, sh, y);
      });
    }
    scene.nodes.push({ node: n.node, heldBy: b.held_by, full: b.full, empty: b.empty, maxFull: b.max_full, maxEmpty: b.max_empty });
    y += 6;
  }
  scene.held = cache.held_sheaves;
  if (scene.held.length > 0) {
    text('held-title', PAD, y + LINE * 0.8, label('sheavesView.held'), 'title');
    y += LINE + 6;
    scene.held.forEach((sh, i) => {
      y = sheaf(`held-${i}`, `#${i + 1}`, sh, y);
    });
  }
  scene.rcu = cache.rcu_sheaves;
  if (scene.rcu.length > 0) {
    text('rcu-title', PAD, y + LINE * 0.8, label('sheavesView.rcu'), 'title');
    y += LINE + 6;
    scene.rcu.forEach((sh, i) => {
      y = sheaf(`rcu-${i}`, `#${i + 1}`, sh, y);
    });
  }
  marks.height = y + PAD;
  return scene;
}
