import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import buddyMerge from '../views/fixtures/buddy-merge.json';
import buddySplit from '../views/fixtures/buddy-split.json';
import slab300 from '../views/fixtures/slab-300.json';
import remote104 from '../views/fixtures/slub-remote-free-104.json';
import remote120 from '../views/fixtures/slub-remote-free-120.json';
import type { Snapshot } from './generated/Snapshot';
import { joinView, splitView, type ReceivedParts, type SentParts } from './viewParts';

const FIXTURES = [buddyMerge, buddySplit, slab300, remote104, remote120] as unknown as Snapshot[];
/** A fixture, or one without a cache shown (the views' empty case). */
const snapshots = [...FIXTURES, { ...FIXTURES[0], cache: null }];

describe('view parts', () => {
  it('give back every snapshot of any sequence, and the same objects for parts that did not change', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: snapshots.length - 1 }), { minLength: 1, maxLength: 12 }), (picks) => {
        let sent: SentParts | null = null;
        let received: ReceivedParts | null = null;
        let previous: Snapshot | null = null;
        for (const i of picks) {
          const split = splitView(snapshots[i], null, sent);
          sent = split.sent;
          const before: ReceivedParts | null = received;
          const joined = joinView(split.wire, received);
          received = joined.received;
          expect(joined.snapshot).toEqual(snapshots[i]);
          if (previous && JSON.stringify(previous.buddy) === JSON.stringify(snapshots[i].buddy)) {
            expect(split.wire.buddy).toBeNull();
            expect(joined.snapshot.buddy).toBe(before?.buddy);
          } else {
            expect(split.wire.buddy).not.toBeNull();
          }
          previous = snapshots[i];
        }
      }),
    );
  });

  it('sends the untouched kmalloc caches once, apart from the caches in use', () => {
    const base = FIXTURES[3];
    const idleCache = { ...base.caches[0], id: 100, name: 'kmalloc-cg-8', kmalloc: 'cgroup' as const, slabs: 0, live_objects: 0 };
    const busy = (live: number): Snapshot => ({
      ...base,
      caches: [...base.caches.map((c) => (c.kmalloc === null ? { ...c, live_objects: live } : c)), idleCache],
    });
    const first = splitView(busy(1), null, null);
    expect(JSON.parse(first.wire.rest).caches.map((c: { name: string }) => c.name)).not.toContain('kmalloc-cg-8');
    const joinedFirst = joinView(first.wire, null);
    expect(joinedFirst.snapshot).toEqual(busy(1));
    const second = splitView(busy(2), null, first.sent);
    expect(second.wire.idle).toBeNull();
    const joined = joinView(second.wire, joinedFirst.received);
    expect(joined.snapshot).toEqual(busy(2));
    expect(joined.received.idle).toBe(joinedFirst.received.idle);
  });

  it('refuses a view whose left-out parts the page never received', () => {
    const first = splitView(FIXTURES[3], null, null);
    const again = splitView(FIXTURES[3], null, first.sent);
    expect(again.wire.buddy).toBeNull();
    expect(() => joinView(again.wire, null)).toThrow(/parts the page does not have/);
  });
});
