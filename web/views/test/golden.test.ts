// @vitest-environment jsdom
//
// Golden drawings of every view: each drawn from a snapshot fixture (made by the simulator, see
// fixtures/scenarios/README.md) into a jsdom <svg>, its canvases recorded as SVG (svgCanvas.ts),
// and compared with output/NAME.svg (golden.ts). Texts are in English, as a person reads them:
// a golden is a picture to look at when it changes.
//
// Drawings that move (d3 transitions) are also drawn with motion, from an earlier snapshot where
// the view keeps its elements between steps, and run to their end on fake timers: where they end
// must be the still drawing of the later snapshot (whose golden the still tests check).

import i18next from 'i18next';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Snapshot } from '../../core/generated/Snapshot';
import { resources } from '../../i18n/resources';
import { layoutBuddy } from '../buddy';
import { drawBuddyLists, drawBuddyPairs, buddySize, type BuddyText } from '../buddyDraw';
import { layoutBulkFree } from '../bulkFree';
import { drawBulkFree } from '../bulkFreeDraw';
import { layoutCpuPanel } from '../cpuPanel';
import { drawCpuPanel } from '../cpuPanelDraw';
import { MOTION_MS, STILL, type Motion } from '../drawUtil';
import { fixture, type FixtureName } from '../fixtures/fixture';
import { layoutFrameMap } from '../frameMap';
import { drawFrameMap } from '../frameMapDraw';
import { drawGeometryChart } from '../geometryChart';
import { geometryScene, type SceneRow, type SweepTableData } from '../geometryScene';
import { labelText, type Translate } from '../marks';
import { layoutNodePanel } from '../nodePanel';
import { drawNodePanel } from '../nodePanelDraw';
import { drawMarks } from '../marksDraw';
import { wordLabel, type SharedWord } from '../sharedWords';
import { layoutSlabPage } from '../slabPage';
import { layoutStage } from '../stage';
import { drawSlabPage, drawSlabStrip, drawSlots, pageSize, type SlabPageText } from '../slabPageDraw';
import { expectGolden, serializeSvg } from './golden';
import { installSvgTransforms } from './jsdomSvg';
import { contextOf, installSvgCanvas } from './svgCanvas';

// Before the modules load: d3-timer takes its clock (`performance`) when it is imported, and
// transitions must run on the fake one.
vi.hoisted(() => {
  vi.useFakeTimers();
});

const SVG_NS = 'http://www.w3.org/2000/svg';

const english = i18next.createInstance();
void english.init({ resources: { en: resources.en }, lng: 'en', fallbackLng: false, initAsync: false, interpolation: { escapeValue: false } });
const t: Translate = (key, args) => english.t(key, args);

const MOVING: Motion = { ms: MOTION_MS, playing: false };

function svgElement(): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  document.body.appendChild(svg);
  return svg;
}

/** One picture of a view drawn in layers, as the page stacks them: canvases under the SVG. */
function layered(width: number, height: number, layers: (HTMLCanvasElement | SVGSVGElement)[]): SVGSVGElement {
  const root = svgElement();
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  root.setAttribute('width', String(width));
  root.setAttribute('height', String(height));
  for (const layer of layers) {
    if (layer instanceof HTMLCanvasElement) {
      const g = contextOf(layer).group.cloneNode(true) as SVGGElement;
      g.setAttribute('class', 'canvas');
      root.appendChild(g);
    } else {
      root.appendChild(layer);
    }
  }
  return root;
}

/** Runs every transition started so far to its end. */
function finishTransitions(): void {
  vi.advanceTimersByTime(10 * MOTION_MS);
}

beforeAll(() => {
  installSvgCanvas();
  installSvgTransforms();
});

afterEach(() => {
  document.body.replaceChildren();
});

/** The moving drawing, run to its end, is the still one. */
function expectSameDrawing(moved: Element, still: Element): void {
  expect(serializeSvg(moved)).toBe(serializeSvg(still));
}

// The views drawn from marks (marksDraw.ts): CPU panel, node panel, bulk free.
const markViews = {
  'cpu-panel': (svg: SVGSVGElement, s: Snapshot, motion: Motion) => drawCpuPanel(svg, layoutCpuPanel(s), { t, motion }),
  'node-panel': (svg: SVGSVGElement, s: Snapshot, motion: Motion) => drawNodePanel(svg, layoutNodePanel(s), { t, motion }),
  'bulk-free': (svg: SVGSVGElement, s: Snapshot, motion: Motion) => drawBulkFree(svg, layoutBulkFree(s), { t, motion }),
};

const markCases: [keyof typeof markViews, FixtureName, string][] = [
  ['cpu-panel', 'slub-numa-300', 'SLUB on two nodes: c->freelist, frozen cpu slabs, cpu partial slabs'],
  ['cpu-panel', 'slub-remote-free-104', 'a remote free froze a full slab onto cpu1\'s partial stack'],
  ['cpu-panel', 'slab-300', 'SLAB: per-CPU array caches'],
  ['cpu-panel', 'rcu-waiting', 'kfree_rcu() pointers queued, call_rcu() callbacks'],
  ['cpu-panel', 'slub-remote-free-120', 'cpu1\'s partial slab flushed'],
  ['node-panel', 'slub-remote-free-104', 'node 0\'s full slabs, none partial'],
  ['node-panel', 'slub-remote-free-120', 'a flush takes node 0\'s list_lock'],
  ['node-panel', 'slub-numa-300', 'SLUB partial lists on two nodes'],
  ['node-panel', 'slab-300', 'SLAB: slab lists, shared arrays, alien caches'],
  ['bulk-free', 'slub-bulk-free', 'build_detached_freelist() over two slabs'],
];

describe('golden drawings of the views drawn from marks', () => {
  for (const [view, name, what] of markCases) {
    it(`${view} at ${name}: ${what}`, () => {
      const svg = svgElement();
      markViews[view](svg, fixture(name), STILL);
      expectGolden(`${view}-${name}`, svg);
    });
  }

  it('ends a moving CPU panel and node panel where the still drawing of the next snapshot is', () => {
    for (const view of ['cpu-panel', 'node-panel'] as const) {
      const moved = svgElement();
      markViews[view](moved, fixture('slub-remote-free-104'), STILL);
      markViews[view](moved, fixture('slub-remote-free-120'), MOVING);
      finishTransitions();
      const still = svgElement();
      markViews[view](still, fixture('slub-remote-free-120'), STILL);
      expectSameDrawing(moved, still);
    }
  });
});

// The stage: the whole allocator in one diagram, at a laptop's width and a phone's.
const stage = (width: number, detail: 'bars' | 'slots' = 'bars') => (svg: SVGSVGElement, s: Snapshot, motion: Motion) => drawMarks(svg, layoutStage(s, { width, detail }).marks, { t, motion });

const stageCases: [string, FixtureName, (svg: SVGSVGElement, s: Snapshot, motion: Motion) => void, string][] = [
  ['stage', 'slub-numa-300', stage(800), 'SLUB on two nodes, 800 px'],
  ['stage-phone', 'slub-numa-300', stage(370), 'SLUB on two nodes, a phone'],
  ['stage', 'slab-300', stage(800), 'SLAB: array caches, three lists, shared and alien arrays'],
  ['stage-slots', 'slub-remote-free-120', stage(800, 'slots'), 'close in: the shown slab slot by slot'],
  ['stage', 'buddy-merge', stage(800), 'a buddy merge lights free_area[]'],
  ['stage', 'sheaves-7.2', stage(800), 'Linux 7.2: each CPU\'s sheaves and the barn, no cpu slab'],
  ['stage-phone', 'sheaves-7.2', stage(370), 'Linux 7.2 on a phone'],
];

describe('golden drawings of the stage', () => {
  for (const [view, name, draw, what] of stageCases) {
    it(`${view} at ${name}: ${what}`, () => {
      const svg = svgElement();
      draw(svg, fixture(name), STILL);
      expectGolden(`${view}-${name}`, svg);
    });
  }

  it('ends a moving stage where the still drawing of the next snapshot is (a slab slides from c->partial to n->partial)', () => {
    const moved = svgElement();
    stage(800)(moved, fixture('slub-remote-free-104'), STILL);
    stage(800)(moved, fixture('slub-remote-free-120'), MOVING);
    finishTransitions();
    const still = svgElement();
    stage(800)(still, fixture('slub-remote-free-120'), STILL);
    expectSameDrawing(moved, still);
  });
});

/** The slot tooltips are not part of the drawing (the slot canvas's hit test shows them). */
function slabPageText(): SlabPageText {
  return { slotTitle: () => '', wordMark: (w) => labelText(wordLabel(w), t) };
}

/** The slab page as the page stacks it: the slot canvas under the pointer SVG. */
function drawSlabPageView(s: Snapshot, svg: SVGSVGElement, slots: HTMLCanvasElement, motion: Motion, words?: SharedWord[]): () => SVGSVGElement {
  const scene = layoutSlabPage(s, { words });
  drawSlots(slots, scene);
  drawSlabPage(svg, scene, { motion, text: slabPageText() });
  const { width, height } = pageSize(scene);
  return () => layered(width, height, [slots, svg]);
}

describe('golden drawings of the slab page', () => {
  const cases: [FixtureName, string][] = [
    ['slub-remote-free-104', 'a frozen slab on a cpu partial stack, one free object'],
    ['slub-hardened', 'c->freelist slots and encoded free pointers'],
    ['slab-cached', 'SLAB: allocated, free and cached slots'],
    ['slub-bulk-free-8', 'every object of a detached freelist freed at once'],
    ['slub-numa-300', 'a slab of 32 objects, the step\'s object highlighted'],
  ];
  for (const [name, what] of cases) {
    it(`at ${name}: ${what}`, () => {
      const picture = drawSlabPageView(fixture(name), svgElement(), document.createElement('canvas'), STILL);
      expectGolden(`slab-page-${name}`, picture());
    });
  }

  it('draws the strip of every slab of the cache', () => {
    for (const name of ['slub-numa-300', 'slab-300'] as const) {
      const { strip } = layoutSlabPage(fixture(name));
      const canvas = document.createElement('canvas');
      drawSlabStrip(canvas, strip);
      expectGolden(`slab-strip-${name}`, layered(strip.width, strip.height, [canvas]));
    }
  });

  it('ends moving free pointers where the still drawing of the next snapshot is', () => {
    const svg = svgElement();
    drawSlabPageView(fixture('slub-remote-free-120'), svg, document.createElement('canvas'), STILL);
    const moved = drawSlabPageView(fixture('slub-remote-free-104'), svg, document.createElement('canvas'), MOVING);
    finishTransitions();
    const still = drawSlabPageView(fixture('slub-remote-free-104'), svgElement(), document.createElement('canvas'), STILL);
    expectSameDrawing(moved(), still());
  });
});

/** The buddy view's texts, worded with the strings the app's buddy view uses. */
function buddyText(): BuddyText {
  return {
    nodeTitle: (n) =>
      t('buddyView.node', { node: n.node, first: n.startPfn, last: n.startPfn + n.pages - 1, free: n.freePages, level: t(`buddyView.level.${n.level}`) }),
    pcpTitle: (p) => t('buddyView.pcpTitle', { cpu: p.cpu, count: p.count, high: p.high, batch: p.batch }),
    rowLabel: (row) => t('buddyView.row', { order: row.order, count: row.count }),
    more: (count) => t('buddyView.more', { count }),
    pairLabel: (p) => t(p.kind === 'merge' ? 'buddyView.pairShortMerge' : 'buddyView.pairShortSplit', { seq: p.seq, whole: p.order + 1 }),
    // Not drawn: the canvas's hit test shows it.
    chipTitle: () => '',
  };
}

/** The buddy view as the page stacks it: the lists' canvas under the pairs' SVG. */
function drawBuddyView(s: Snapshot, svg: SVGSVGElement, motion: Motion): () => SVGSVGElement {
  const scene = layoutBuddy(s);
  const canvas = document.createElement('canvas');
  const text = buddyText();
  drawBuddyLists(canvas, scene, text);
  drawBuddyPairs(svg, scene, { motion, text });
  const { width, height } = buddySize(scene);
  return () => layered(width, height, [canvas, svg]);
}

// The words a micro-step of a concurrent block touched, as sharedWords() derives them, drawn on a
// real snapshot of the same cache (no fixture of a concurrent block yet).
describe('golden drawings of the shared words a micro-step touched', () => {
  it("cpu-panel: cpu1's cmpxchg of its own pair failed (preempted), cpu0 read cpu1's c->slab", () => {
    const snap = fixture('slub-numa-300');
    const cache = snap.cache!.id;
    const words: SharedWord[] = [
      { word: 'c->freelist', how: 'cmpxchg_failed', by: 1, cache, cpu: 1, reason: 'preempted' },
      { word: 'c->tid', how: 'cmpxchg_failed', by: 1, cache, cpu: 1, reason: 'preempted' },
      { word: 'c->slab', how: 'read', by: 0, cache, cpu: 1 },
      { word: 'c->lock', how: 'held', by: 0, cache, cpu: 0 },
    ];
    const svg = svgElement();
    drawCpuPanel(svg, layoutCpuPanel(snap, { words }), { t, motion: STILL });
    expectGolden('cpu-panel-words-slub-numa-300', svg);
  });

  it("node-panel: cpu2 spins on node 1's list_lock, which cpu1 holds; cpu0 reads node 0's nr_partial", () => {
    const snap = fixture('slub-numa-300');
    const cache = snap.cache!.id;
    const words: SharedWord[] = [
      { word: 'n->list_lock', how: 'waited', by: 2, cache, node: 1, holder: 1 },
      { word: 'n->nr_partial', how: 'read', by: 0, cache, node: 0 },
    ];
    const svg = svgElement();
    drawNodePanel(svg, layoutNodePanel(snap, { words }), { t, motion: STILL });
    expectGolden('node-panel-words-slub-numa-300', svg);
  });

  it("slab-page: cpu2's cmpxchg on the slab's freelist and counters, cpu0 reads a free pointer", () => {
    const snap = fixture('slub-remote-free-120');
    const words: SharedWord[] = [
      { word: 'slab->freelist', how: 'cmpxchg_ok', by: 2, cache: null, pfn: 0, site: '__slab_free' },
      { word: 'slab->counters', how: 'cmpxchg_ok', by: 2, cache: null, pfn: 0, site: '__slab_free' },
      { word: 'freepointer', how: 'read', by: 0, cache: null, object: snap.cache!.slab!.slots[4].addr },
    ];
    const picture = drawSlabPageView(snap, svgElement(), document.createElement('canvas'), STILL, words);
    expectGolden('slab-page-words-slub-remote-free-120', picture());
  });
});

describe('golden drawings of the buddy allocator', () => {
  const cases: [FixtureName, string][] = [
    ['buddy-merge', 'free_pcppages_bulk() merges three buddy pairs'],
    ['buddy-split', 'expand() splits a block for a pcp refill'],
    ['slub-numa-300', 'two nodes, their free_area lists and every CPU\'s pcp lists'],
  ];
  for (const [name, what] of cases) {
    it(`at ${name}: ${what}`, () => {
      expectGolden(`buddy-${name}`, drawBuddyView(fixture(name), svgElement(), STILL)());
    });
  }

  it('ends the merge and split animations in the still drawing', () => {
    for (const name of ['buddy-merge', 'buddy-split'] as const) {
      const moved = drawBuddyView(fixture(name), svgElement(), MOVING);
      finishTransitions();
      expectSameDrawing(moved(), drawBuddyView(fixture(name), svgElement(), STILL)());
    }
  });
});

describe('golden drawings of the page-frame map', () => {
  const cases: [FixtureName, string][] = [
    ['slub-numa-300', 'two nodes: slabs of two caches, pcp pages, free blocks'],
    ['rcu-waiting', 'a slab waiting for RCU, a CPU\'s kfree_rcu() pages'],
    ['buddy-merge', 'free blocks of every order after merging'],
  ];
  for (const [name, what] of cases) {
    it(`at ${name}: ${what}`, () => {
      const scene = layoutFrameMap(fixture(name));
      const canvas = document.createElement('canvas');
      drawFrameMap(canvas, scene);
      expectGolden(`frame-map-${name}`, layered(scene.width, scene.height, [canvas]));
    });
  }
});

describe('golden drawing of the geometry chart', () => {
  const COLUMNS = ['status', 'page_size', 'cpus', 'object_size', 'kmalloc_class', 'size', 'order', 'objs_per_slab', 'waste', 'cpu_partial_slabs', 'sheaf_capacity'];
  /** A sweep as the simulator's table has it: order-0 slabs of 4 KiB, and order 1 from 512 bytes
   * up on the larger machine (objects per slab and waste follow from the slab size). */
  function sweep(): SweepTableData {
    const rows: SceneRow[] = [];
    for (const cpus of [1, 2, 64]) {
      for (let size = 64; size <= 1024; size += 64) {
        const order = cpus === 64 && size >= 512 ? 1 : 0;
        const slab = 4096 << order;
        rows.push({ status: 0, page_size: 4096, cpus, object_size: size, size, order, objs_per_slab: Math.floor(slab / size), waste: slab % size, cpu_partial_slabs: 1, sheaf_capacity: 0 });
      }
    }
    const cells = rows.flatMap((r) => COLUMNS.map((c) => (c === 'kmalloc_class' ? 0 : r[c as keyof SceneRow])));
    return { columns: COLUMNS, rows: Uint32Array.from(cells), points: rows.length };
  }

  for (const metric of ['objs_per_slab', 'waste'] as const) {
    it(`draws ${metric} against object size, one line per distinct CPU count`, () => {
      const svg = svgElement();
      const labels = { x: t('geometry.xLabel'), y: t(`metric.${metric}`), cpus: t('geometry.cpusSuffix') };
      drawGeometryChart(svg, geometryScene(sweep(), 4096, metric), labels, { width: 900, height: 360 });
      expectGolden(`geometry-chart-${metric}`, svg);
    });
  }
});
