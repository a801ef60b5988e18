// The memory views' text alternatives, rendered to static markup (no DOM in these tests: the
// drawings run in useLayoutEffect, which the server renderer skips). What an end-to-end test or
// a screen reader finds must match the scene: the numbers are checked here.

import { readFileSync } from 'node:fs';
import i18next from 'i18next';
import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KernelFiles } from '../../core/generated/KernelFiles';
import type { Snapshot } from '../../core/generated/Snapshot';
import { initI18n } from '../../i18n/i18n';
import { resources } from '../../i18n/resources';
import buddyMerge from '../../views/fixtures/buddy-merge.json';
import buddySplit from '../../views/fixtures/buddy-split.json';
import slabCached from '../../views/fixtures/slab-cached.json';
import slab300 from '../../views/fixtures/slab-300.json';
import bulkFree from '../../views/fixtures/slub-bulk-free.json';
import hardened from '../../views/fixtures/slub-hardened.json';
import numa300 from '../../views/fixtures/slub-numa-300.json';
import remote104 from '../../views/fixtures/slub-remote-free-104.json';
import remote120 from '../../views/fixtures/slub-remote-free-120.json';
import rcuWaiting from '../../views/fixtures/rcu-waiting.json';
import { BuddyAllocatorView } from './BuddyAllocatorView';
import { FilesView } from './FilesView';
import { FrameMapView } from './FrameMapView';
import { SlabPageView } from './SlabPageView';
import { STILL } from '../../views/drawUtil';
import type { MemoryViewProps } from './viewProps';

const snap = (s: unknown) => s as Snapshot;
const render = (view: FunctionComponent<MemoryViewProps>, s: unknown) =>
  renderToStaticMarkup(createElement(view, { snapshot: snap(s), motion: STILL }));

/** The text inside the first element carrying this data-testid (tags stripped). */
function byTestId(html: string, id: string): string {
  const start = html.indexOf(`data-testid="${id}"`);
  if (start < 0) throw new Error(`no data-testid="${id}"`);
  const open = html.lastIndexOf('<', start);
  const tag = /^<(\w+)/.exec(html.slice(open))![1];
  // Same-tag nesting is counted so a table's text ends at its own </table>.
  let depth = 0;
  const re = new RegExp(`<${tag}[\\s>]|</${tag}>`, 'g');
  re.lastIndex = open;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[0].startsWith('</') ? -1 : 1;
    if (depth === 0) return strip(html.slice(open, m.index));
  }
  return strip(html.slice(open));
}

function strip(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

const count = (html: string, id: string) => html.split(`data-testid="${id}"`).length - 1;

/** Rows of a table with this testid: each row's cells' text. */
function rows(html: string, id: string, rowId: string): string[] {
  const start = html.indexOf(`data-testid="${id}"`);
  const end = html.indexOf('</table>', start);
  return html
    .slice(start, end)
    .split(`data-testid="${rowId}"`)
    .slice(1)
    .map((r) => strip(`<x ${r.slice(0, r.indexOf('</tr>'))}`).replace(/^<x\s*/, ''));
}

beforeAll(async () => {
  initI18n('en', resources);
  await i18next.changeLanguage('en');
});

describe('SlabPageView', () => {
  it('shows the header of a frozen slab on a cpu partial stack', () => {
    const html = render(SlabPageView, remote104);
    expect(byTestId(html, 'slab-inuse')).toBe('31/32');
    expect(byTestId(html, 'slab-frozen')).toBe('yes');
    expect(byTestId(html, 'slab-place')).toBe('on the cpu partial stack of CPU 1');
    expect(byTestId(html, 'slab-freelist')).toBe('0xffff888000000000');
    expect(byTestId(html, 'slab-pfn')).toBe('0');
    expect(html).toContain('aria-hidden="true" data-testid="slab-drawing"');
  });

  it('lists every slot with index, address, state, next, allocated and freed by', () => {
    const html = render(SlabPageView, remote104);
    expect(count(html, 'slab-slot')).toBe(32);
    const [first, second] = rows(html, 'slab-slots', 'slab-slot');
    expect(first).toContain('0 0xffff888000000000');
    expect(first).toContain('free on slab->freelist');
    expect(first).toContain('NULL');
    expect(first).toContain('#1 · step 4 · CPU 0');
    expect(first).toContain('#97 · step 104 · CPU 1');
    expect(first).toContain('changed by this step');
    expect(second).toContain('allocated');
    expect(second).not.toContain('NULL');
    // Not hardened: no stored-word column.
    expect(count(html, 'slot-stored')).toBe(0);
  });

  it('shows the decoded pointer and the stored word of a hardened cache', () => {
    const html = render(SlabPageView, hardened);
    expect(byTestId(html, 'slab-random')).toBe('0x6288a91589f24aa1');
    expect(byTestId(html, 'slab-cpu-freelist-0')).toBe('0xffff8880000000c0');
    const row3 = rows(html, 'slab-slots', 'slab-slot')[3];
    expect(row3).toContain('free on c->freelist of CPU 0');
    expect(row3).toContain('0xffff888000000100 (object 4)');
    expect(row3).toContain('0x7d772195097ab45e');
    expect(count(html, 'slot-stored')).toBe(64);
  });

  it('shows SLAB slots, colour_off and the index-array order', () => {
    const html = render(SlabPageView, slabCached);
    expect(byTestId(html, 'slab-colour-off')).toBe('0');
    expect(byTestId(html, 'slab-free-order')).toBe('16 → 17 → 18 → 19');
    expect(byTestId(html, 'slab-place')).toBe('on slabs_partial');
    expect(html.split('cached in an array_cache').length - 1).toBeGreaterThanOrEqual(14);
    const row16 = rows(html, 'slab-slots', 'slab-slot')[16];
    expect(row16).toContain('(1 out)');
    // SLAB keeps no free pointer in the object: no NULL, a dash.
    expect(row16).not.toContain('NULL');
  });

  it('lists every slab of the cache as a button, the shown one marked current', () => {
    const html = render(SlabPageView, numa300);
    expect(count(html, 'slab-strip-item')).toBe(numa300.cache.slabs.length);
    expect(html).toMatch(/aria-current="true"[^>]*data-pfn="1028"/);
    expect(byTestId(html, 'slab-strip-list')).toContain('Slab at pfn 1028, node 1: 14/16 in use, on the cpu partial stack of CPU 0, frozen');
  });

  it('says so when there is no slab, and keeps the text alternative hidden until asked', () => {
    const html = render(SlabPageView, buddyMerge);
    expect(byTestId(html, 'slab-empty')).toBe('kmalloc-8 has no slab to show at this step.');
    expect(html).toContain('class="text-alternative-body sr-only" data-testid="slab-text"');
    expect(byTestId(html, 'slab-text-toggle')).toBe('Show as table');
  });
});

describe('BuddyAllocatorView', () => {
  it('lists free_area per order with nr_free and the zone against its watermarks', () => {
    const html = render(BuddyAllocatorView, buddyMerge);
    const orders = rows(html, 'free-area-node-0', 'free-area-order');
    expect(orders).toHaveLength(11);
    expect(orders[2]).toBe('2 1 12');
    expect(orders[3]).toBe('3 1 0');
    expect(orders[0]).toBe('0 0 empty');
    expect(byTestId(html, 'zone-free')).toBe('12');
    expect(byTestId(html, 'zone-watermarks')).toBe('32 / 40 / 48');
    expect(byTestId(html, 'zone-level')).toBe('below min');
  });

  it('shows each pcp with count, high, batch and its lists', () => {
    const html = render(BuddyAllocatorView, buddyMerge);
    const pcp = byTestId(html, 'pcp-cpu-1-node-0');
    expect(pcp).toContain('4 12 3 0');
    expect(rows(html, 'pcp-cpu-1-node-0', 'pcp-list')).toEqual(['0 empty', '1 empty', '2 8', '3 empty']);
    expect(byTestId(html, 'pcp-cpu-0-node-0')).toContain('0 12 3 0');
  });

  it('names each merged buddy pair in order', () => {
    const html = render(BuddyAllocatorView, buddyMerge);
    expect(count(html, 'buddy-pair')).toBe(3);
    expect(byTestId(html, 'buddy-pairs')).toBe(
      '#1 merged: pfn 2 + pfn 3 (order 0) → pfn 2, order 1 #2 merged: pfn 0 + pfn 2 (order 1) → pfn 0, order 2 #3 merged: pfn 0 + pfn 4 (order 2) → pfn 0, order 3',
    );
  });

  it('names each split pair, and none on a quiet step', () => {
    const html = render(BuddyAllocatorView, buddySplit);
    expect(byTestId(html, 'buddy-pairs')).toBe(
      '#1 split: pfn 0, order 4 → pfn 0 + pfn 8 (order 3) #2 split: pfn 0, order 3 → pfn 0 + pfn 4 (order 2)',
    );
    expect(count(render(BuddyAllocatorView, remote120), 'buddy-pairs')).toBe(0);
  });

  it('has one free_area table per node on NUMA', () => {
    const html = render(BuddyAllocatorView, slab300);
    expect(count(html, 'free-area-node-0')).toBe(1);
    expect(count(html, 'free-area-node-1')).toBe(1);
    expect(count(html, 'pcp-cpu-1-node-1')).toBe(1);
  });
});

describe('FrameMapView', () => {
  it('summarises pages per owner kind and lists the runs', () => {
    const html = render(FrameMapView, buddyMerge);
    expect(byTestId(html, 'frame-map')).toBe(
      'page frames 16, runs 3 · buddy (free): pages 12, runs 2 · pcp: pages 4, runs 1',
    );
    expect(rows(html, 'frame-map-runs', 'frame-run')).toEqual([
      '0–7 8 1 free in buddy, order 3 0',
      '8–11 4 1 pcp of CPU 1, order 2 0',
      '12–15 4 1 free in buddy, order 2 0',
    ]);
    expect(html).toMatch(/<canvas aria-hidden="true"[^>]*data-testid="frame-map-canvas"/);
  });

  it('names a slab waiting for RCU by its cache, and a CPU\'s kfree_rcu pointer pages', () => {
    const html = render(FrameMapView, rcuWaiting);
    const runs = rows(html, 'frame-map-runs', 'frame-run');
    expect(runs[0]).toBe('0–3 4 1 slab of sighand waiting for an RCU grace period (call_rcu), order 2 0');
    expect(runs).toContain('9–13 5 5 kfree_rcu() pointers of CPU 0 (kvfree_rcu_bulk_data), order 0 0');
    expect(byTestId(html, 'frame-map-legend')).toContain('slab waiting for RCU: 4 pages');
  });

  it('names slab owners by cache and marks the nodes', () => {
    const html = render(FrameMapView, remote104);
    expect(rows(html, 'frame-map-runs', 'frame-run')[0]).toBe('0–2 3 3 slab of kmalloc-128, order 0 0');
    expect(byTestId(render(FrameMapView, slab300), 'frame-map-nodes')).toContain('node 1: pfn 1024–2047');
  });
});

describe('FilesView', () => {
  const listing = ':0000064/\nc -> :0000064\nkmalloc-64/\n';
  const files: KernelFiles = {
    slabinfo:
      'slabinfo - version: 2.1\n# name            <active_objs> <num_objs>\nc                     64     64     64   64    1 : tunables    0    0    0 : slabdata      1      1      0\n',
    buddyinfo: 'Node 0, zone   Normal      1      1      1      1      1      1      1      1      0      0      0 \n',
    sysfs: {
      Ok: [
        ['aliases', '0'],
        ['cpu_slabs', '1 N0=1'],
      ],
    },
    slab_dir: { Ok: listing },
  };
  const renderFiles = (f: KernelFiles | null, cacheName: string | null) => renderToStaticMarkup(createElement(FilesView, { files: f, cacheName }));

  it('shows the files exactly as given, under their paths', () => {
    const html = renderFiles(files, 'c');
    expect(html).toContain(`<pre data-testid="files-slabinfo" tabindex="0">${files.slabinfo.replace(/</g, '&lt;').replace(/>/g, '&gt;')}</pre>`);
    expect(html).toContain(`<pre data-testid="files-buddyinfo" tabindex="0">${files.buddyinfo}</pre>`);
    expect(html).toContain('<code>/sys/kernel/slab/c/</code>');
    expect(rows(html, 'files-sysfs', 'files-sysfs-row')).toEqual(['aliases 0', 'cpu_slabs 1 N0=1']);
    expect(html).toContain(`<pre data-testid="files-slab-dir" tabindex="0">${listing.replace(/>/g, '&gt;')}</pre>`);
    // c is a mergeable cache: its name is a symlink to its unique id.
    expect(byTestId(html, 'files-sysfs-link')).toBe('(a symlink to :0000064)');
    expect(renderFiles(files, 'kmalloc-64')).not.toContain('files-sysfs-link');
  });

  it('shows /proc/slabinfo as a table, marks what changed since the step before, and keeps the kernel’s text', () => {
    const head =
      'slabinfo - version: 2.1\n# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n';
    const line = (active: number) => `kmalloc-128       ${String(active).padStart(6)}     96    128   32    1 : tunables    0    0    0 : slabdata      3      3      0\n`;
    const now: KernelFiles = { ...files, slabinfo: head + line(81), sysfs: { Ok: [['aliases', '0'], ['objects', '81']] } };
    const before: KernelFiles = { ...files, slabinfo: head + line(80), sysfs: { Ok: [['aliases', '0'], ['objects', '80']] } };
    const html = renderToStaticMarkup(createElement(FilesView, { files: now, before, cacheName: 'c' }));
    expect(rows(html, 'files-slabinfo-table', 'files-slabinfo-row')).toEqual(['kmalloc-128 81 (changed at this step) 96 128 32 1 3 3']);
    // SLUB's tunables are all 0: that group starts hidden, and can be chosen.
    expect(byTestId(html, 'files-slabinfo-columns')).toMatch(/^Columns: 7 of 11 shown active_objs num_objs .* tunables: limit .* slabdata: sharedavail$/);
    expect(html).not.toContain('>limit<');
    expect(byTestId(html, 'files-slabinfo-changes')).toBe('1 value changed at this step');
    expect(html).toContain(`<pre data-testid="files-slabinfo" tabindex="0">${now.slabinfo.replace(/</g, '&lt;').replace(/>/g, '&gt;')}</pre>`);
    expect(rows(html, 'files-sysfs', 'files-sysfs-row')).toEqual(['aliases 0', 'objects 81 (changed at this step)']);
    // Step 0 has no step before: nothing is marked.
    const first = renderToStaticMarkup(createElement(FilesView, { files: now, cacheName: 'c' }));
    expect(first).not.toContain('data-changed');
    expect(first).not.toContain('files-slabinfo-changes');
  });

  it("lists the scenario's print lines, marking the one that reads its file at the cursor", () => {
    const prints = [
      { line: 20, text: 'print slabinfo', cursor: 4, file: { kind: 'slabinfo' as const } },
      { line: 27, text: 'print sysfs c', cursor: 8, file: { kind: 'sysfs' as const, cache: 'c' } },
    ];
    const html = renderToStaticMarkup(createElement(FilesView, { files, cacheName: 'c', prints, cursor: 8 }));
    const items = html
      .split('data-testid="files-print"')
      .slice(1)
      .map((r) => strip(`<x ${r.slice(0, r.indexOf('</li>'))}`).replace(/^<x\s*/, ''));
    expect(items).toEqual(['line 20: /proc/slabinfo after step 4', 'line 27: /sys/kernel/slab/c/ after step 8']);
    expect(html).toContain('aria-current="step" data-testid="files-print" data-cursor="8"');
    expect(renderFiles(files, 'c')).not.toContain('files-prints');
  });

  it('gives the reason when there is no sysfs directory, in the reader\'s language, and a message without files', async () => {
    const notSlub = { key: 'sysfs.not_slub', cache: null, message: '/sys/kernel/slab exists only under SLUB; SLAB shows its tunables in /proc/slabinfo' };
    const gone = { key: 'sysfs.destroyed', cache: 'c', message: 'cache c was destroyed (kmem_cache_destroy), so /sys/kernel/slab/c is gone' };
    let html = renderFiles({ ...files, sysfs: { Err: gone }, slab_dir: { Err: notSlub } }, 'c');
    expect(byTestId(html, 'files-sysfs-missing')).toBe('c was destroyed (kmem_cache_destroy), so /sys/kernel/slab/c is gone.');
    expect(byTestId(html, 'files-slab-dir-missing')).toBe('/sys/kernel/slab exists only under SLUB; SLAB shows its tunables in /proc/slabinfo.');
    try {
      await i18next.changeLanguage('ko');
      html = renderFiles({ ...files, sysfs: { Err: gone }, slab_dir: { Err: notSlub } }, 'c');
      expect(byTestId(html, 'files-slab-dir-missing')).toContain('SLUB에만 있습니다');
      expect(byTestId(html, 'files-sysfs-missing')).not.toContain('was destroyed');
    } finally {
      await i18next.changeLanguage('en');
    }
    // A key this build does not know: the simulator's English.
    html = renderFiles({ ...files, sysfs: { Err: { key: 'sysfs.new_kind', cache: null, message: 'something new' } } }, 'c');
    expect(byTestId(html, 'files-sysfs-missing')).toBe('No such directory: something new');
    expect(byTestId(renderFiles(null, null), 'files-none')).toBe('No kernel files at this step.');
  });

  it('has words in both languages for every reason the simulator can give', () => {
    const source = readFileSync('wasm-core/sim/src/sysfs.rs', 'utf8') + readFileSync('wasm-core/run/src/session.rs', 'utf8');
    const keys = [...new Set([...source.matchAll(/"sysfs\.([a-z_]+)"/g)].map((m) => m[1]))];
    expect(keys.length).toBeGreaterThanOrEqual(5);
    for (const lng of ['en', 'ko'] as const) {
      for (const k of keys) expect(i18next.exists(`filesView.missing.${k}`, { lng }), `${lng}: ${k}`).toBe(true);
    }
  });
});

describe('every view in both languages', () => {
  it('leaves no key untranslated', async () => {
    const fixtures = [remote104, remote120, hardened, slabCached, slab300, bulkFree, numa300, buddyMerge, buddySplit];
    try {
      for (const lang of ['en', 'ko']) {
        await i18next.changeLanguage(lang);
        for (const f of fixtures) {
          for (const view of [SlabPageView, BuddyAllocatorView, FrameMapView]) {
            const html = render(view, f);
            expect(html, `${lang} ${view.name}`).not.toMatch(/(slabView|buddyView|frameMap|filesView)\.[a-zA-Z]/);
          }
        }
      }
    } finally {
      await i18next.changeLanguage('en');
    }
  });
});
