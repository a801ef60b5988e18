// The text alternatives of the structure views, rendered to markup from real snapshots: what a
// screen reader (and an end-to-end test) reads through the data-testids.
import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../core/generated/Snapshot';
import { initI18n } from '../../i18n/i18n';
import { resources } from '../../i18n/resources';
import { fixture } from '../../views/fixtures/fixture';
import { BulkFreeView } from './BulkFreeView';
import { CpuPanelView } from './CpuPanelView';
import { NodePanelView } from './NodePanelView';
import { STILL } from '../../views/drawUtil';
import type { SharedWord } from '../../views/sharedWords';
import type { StructViewProps } from './ViewFigure';

const i18n = initI18n('en', resources);
beforeAll(async () => {
  await i18n.changeLanguage('en');
});

function render(view: FunctionComponent<StructViewProps>, snapshot: Snapshot): string {
  return renderToStaticMarkup(createElement(view, { snapshot, motion: STILL }));
}

/** The markup inside the element with this data-testid (elements of one tag do not nest here). */
function byTestId(html: string, id: string): string {
  const open = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>`).exec(html);
  if (!open) throw new Error(`no data-testid="${id}"`);
  const start = open.index + open[0].length;
  const end = html.indexOf(`</${open[1]}>`, start);
  return html.slice(start, end);
}

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&amp;/g, '&').replace(/&gt;/g, '>').replace(/&#x27;/g, "'");
const items = (html: string) => [...html.matchAll(/<li[^>]*>(.*?)<\/li>/g)].map((m) => text(m[1]));
const addrs = (html: string) => [...html.matchAll(/data-addr="([^"]+)"/g)].map((m) => m[1]);

describe('CpuPanelView text alternative', () => {
  it('lists c->freelist in order, the cpu slab and the partial stack per CPU', () => {
    const snap = fixture('slub-numa-300');
    const html = render(CpuPanelView, snap);
    const c1 = snap.cache!.cpus[1];
    if (c1.kind !== 'slub') throw new Error('SLUB fixture');
    const fl = byTestId(html, 'cpu-1-freelist');
    expect(addrs(fl)).toEqual(c1.freelist.slice(0, 10));
    expect(items(fl).at(-1)).toBe('+2 more');
    expect(text(byTestId(html, 'cpu-0-freelist'))).toBe('NULL');
    expect(text(byTestId(html, 'cpu-1-tid'))).toBe('6785');
    expect(text(byTestId(html, 'cpu-1-slab'))).toBe('slab 1048: 16/16 in use (frozen)');
    expect(items(byTestId(html, 'cpu-0-partial'))).toEqual([
      'slab 1028: 14/16 in use, slabs 2 (frozen) (touched by this step)',
      'slab 1024: 0/16 in use, slabs 1 (frozen)',
    ]);
    expect(html).toContain('<th scope="row">cpu 1 (node 1)</th>');
    expect(html).toContain('<caption>');
  });

  it("adds each CPU's kfree_rcu() pointers and call_rcu() callbacks when RCU holds any", () => {
    const html = render(CpuPanelView, fixture('rcu-waiting'));
    expect(html).toContain('<th scope="col">kfree_rcu (krc) and call_rcu</th>');
    expect(items(byTestId(html, 'cpu-0-krc'))).toEqual([
      '0xffff888000008040',
      '0xffff888000008080',
      '0xffff888000008000 (chained through its rcu_head)',
    ]);
    const cpu1 = text(byTestId(html, 'cpu-1-rcu'));
    expect(cpu1).toContain('call_rcu: 1 queued, 0 ready to run');
    expect(text(byTestId(html, 'cpu-0-rcu'))).toContain('queued 3: 2 in 1 page(s), 1 chained');
    expect(render(CpuPanelView, fixture('slub-numa-300'))).not.toContain('kfree_rcu');
  });

  it('hides the table visually until asked, behind a real button', () => {
    const html = render(CpuPanelView, fixture('slub-remote-free-104'));
    expect(html).toMatch(/<button[^>]*aria-expanded="false"[^>]*>Show as table<\/button>/);
    expect(html).toMatch(/class="text-alternative-body sr-only"/);
    expect(html).toMatch(/<svg[^>]*aria-hidden="true"/);
    expect(items(byTestId(html, 'cpu-1-partial'))).toEqual(['slab 0: 31/32 in use, slabs 1 (frozen) (touched by this step)']);
    expect(html).toContain('data-pfn="0"');
  });

  it('shows SLAB array caches', () => {
    const html = render(CpuPanelView, fixture('slab-300'));
    expect(text(byTestId(html, 'cpu-1-array'))).toBe('avail 0 / limit 54; batchcount 27; touched: yes');
    expect(text(byTestId(html, 'cpu-0-entries'))).toBe('(empty)');
  });
});

describe('NodePanelView text alternative', () => {
  it('shows n->partial, nr_partial against min_partial and a lit list_lock', () => {
    const html = render(NodePanelView, fixture('slub-remote-free-120'));
    expect(items(byTestId(html, 'node-0-partial'))).toEqual(['slab 0: 16/32 in use (touched by this step)']);
    expect(text(byTestId(html, 'node-0-nr-partial'))).toBe('nr_partial 1 / min_partial 5');
    expect(html).toMatch(/data-testid="node-0-list-lock" data-taken-now="true"/);
    expect(text(byTestId(html, 'node-0-list-lock'))).toContain('list_lock: taken now; taken 1× so far');
    expect(text(byTestId(html, 'node-0-counts'))).toBe('nr_slabs 3 · total_objects 96');
  });

  it('shows SLAB lists, free_limit and 0xbaadf00d batchcounts', () => {
    const html = render(NodePanelView, fixture('slab-300'));
    expect(items(byTestId(html, 'node-1-slabs-full'))).toHaveLength(13);
    expect(text(byTestId(html, 'node-1-slabs-partial'))).toBe('(empty)');
    expect(text(byTestId(html, 'node-0-free-objects'))).toBe('free_objects 0 / free_limit 58');
    expect(text(byTestId(html, 'node-0-shared'))).toBe('shared: avail 0 / limit 216 · batchcount 0xbaadf00d');
    expect(items(byTestId(html, 'node-1-alien'))).toEqual(['alien[node 0]: avail 0 / limit 12 · batchcount 0xbaadf00d']);
    expect(html).toMatch(/data-testid="node-1-list-lock" data-taken-now="false"/);
  });
});

describe('BulkFreeView text alternative', () => {
  it('shows the array states, the detached freelist head first and the splice', () => {
    const snap = fixture('slub-bulk-free');
    const d = snap.transient.detached[0];
    const html = render(BulkFreeView, snap);
    expect(html).toContain('data-testid="bulk-detached"');
    expect(addrs(byTestId(html, 'bulk-0-objects'))).toEqual(d.objects.slice(0, 6));
    expect(text(byTestId(html, 'bulk-0-summary'))).toBe(
      '20 objects of slab 1 gathered; 22 entries scanned; lookahead left 0 of 3; entries from index 20 on are finished',
    );
    expect(text(byTestId(html, 'bulk-0-result'))).toBe("onto slab 1's freelist with one cmpxchg: not cpu1's c->slab (__slab_free())");
    const states = [...byTestId(html, 'bulk-0-array').matchAll(/data-state="(\w+)" data-index="(\d+)"/g)].map((m) => m[1]);
    expect(states.filter((s) => s === 'skipped')).toHaveLength(3);
    expect(states.at(-1)).toBe('tail');
  });

  it('explains when a detached freelist appears, in Korean too', async () => {
    expect(text(byTestId(render(BulkFreeView, fixture('slub-numa-300')), 'bulk-none'))).toMatch(/^No detached freelist/);
    await i18n.changeLanguage('ko');
    try {
      const html = render(BulkFreeView, fixture('slub-numa-300'));
      expect(text(byTestId(html, 'bulk-none'))).toContain('detached freelist가 없습니다');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('the shared words of a micro-step, in the text alternatives', () => {
  const snap = fixture('slub-numa-300'); // cache 52
  const cache = snap.cache!.id;
  const withWords = (view: FunctionComponent<StructViewProps>, words: SharedWord[]) => renderToStaticMarkup(createElement(view, { snapshot: snap, words, motion: STILL }));

  it("says beside a CPU's fields what a cmpxchg did to them, and why it failed", () => {
    const html = withWords(CpuPanelView, [
      { word: 'c->freelist', how: 'cmpxchg_failed', by: 1, cache, cpu: 1, reason: 'preempted' },
      { word: 'c->tid', how: 'cmpxchg_failed', by: 1, cache, cpu: 1, reason: 'preempted' },
    ]);
    expect(text(byTestId(html, 'cpu-1-tid'))).toBe('6785 (✗ preempted meanwhile)');
    expect(html).toContain('data-word="c-&gt;freelist" data-how="cmpxchg_failed"');
    expect(text(html)).toContain('(✗ cmpxchg failed)');
    expect(text(byTestId(html, 'cpu-0-tid'))).toBe('0');
  });

  it('says who holds the list_lock another CPU spins on, in Korean too', async () => {
    const words: SharedWord[] = [{ word: 'n->list_lock', how: 'waited', by: 2, cache, node: 0, holder: 1 }];
    expect(text(byTestId(withWords(NodePanelView, words), 'node-0-list-lock'))).toBe('■ list_lock: held (cpu2 spins: cpu1 holds it); taken 0× so far');
    await i18n.changeLanguage('ko');
    try {
      expect(text(byTestId(withWords(NodePanelView, words), 'node-0-list-lock'))).toBe('■ list_lock: 잡혀 있음 (cpu2: 스핀 대기 (cpu1에서 쥐고 있음)); 지금까지 0번 잡힘');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
