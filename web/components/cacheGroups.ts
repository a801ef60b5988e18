// The cache picker's groups. Boot creates every kmalloc cache of 6.6 (kmalloc-*, -rcl-*,
// dma-*, -cg-*, and with random kmalloc caches 15 copies of the normal ones), most of which a
// scenario never touches; the picker shows the scenario's own caches first, then the normal
// kmalloc caches and any other kmalloc cache in use, and leaves the empty ones last.

import type { CacheBrief } from '../core/generated/CacheBrief';

export interface CacheGroups {
  /** Caches the scenario declared. */
  scenario: CacheBrief[];
  /** The normal kmalloc caches, and every other kmalloc cache that holds or held a slab. */
  kmalloc: CacheBrief[];
  /** The other kmalloc caches, still without a slab or object. */
  empty: CacheBrief[];
}

/** The live caches of a snapshot in the picker's three groups, each in creation order. */
export function cacheGroups(caches: readonly CacheBrief[]): CacheGroups {
  const groups: CacheGroups = { scenario: [], kmalloc: [], empty: [] };
  for (const c of caches) {
    if (c.destroyed) continue;
    if (c.kmalloc === null) groups.scenario.push(c);
    else if (c.kmalloc === 'normal' || c.slabs > 0 || c.live_objects > 0) groups.kmalloc.push(c);
    else groups.empty.push(c);
  }
  return groups;
}
