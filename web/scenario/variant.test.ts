import { describe, expect, it } from 'vitest';
import { counterpart, parseVariant, VARIANTS, variantId, variantOf, withVariant } from './variant';

describe('the ways a scenario runs', () => {
  it('offers every profile with SLUB, and SLAB under 6.6 only', () => {
    expect(VARIANTS.map(variantId)).toEqual(['linux-6.6/slub', 'linux-6.6/slab', 'linux-6.12/slub', 'linux-6.18/slub', 'linux-7.2/slub']);
    expect(parseVariant('linux-7.2/slab')).toBeNull();
    expect(parseVariant('linux-6.12/slub')).toEqual({ profile: 'linux-6.12', allocator: 'slub' });
  });

  it('rewrites the profile and allocator lines and reads them back', () => {
    const text = 'slabscope-scenario 3\n# a test\nmachine cpus=2 nodes=1 memory=1M\na = kmalloc(64) on cpu0\n';
    expect(variantOf(text)).toEqual({ profile: 'linux-6.6', allocator: 'slub' });
    const slab = withVariant(text, { profile: 'linux-6.6', allocator: 'slab' });
    expect(slab).toBe('slabscope-scenario 3\n# a test\nprofile linux-6.6\nallocator slab\nmachine cpus=2 nodes=1 memory=1M\na = kmalloc(64) on cpu0\n');
    expect(variantOf(slab)).toEqual({ profile: 'linux-6.6', allocator: 'slab' });
    const later = withVariant(slab, { profile: 'linux-7.2', allocator: 'slub' });
    expect(variantOf(later)).toEqual({ profile: 'linux-7.2', allocator: 'slub' });
    expect(later).toContain('allocator slub\n');
    expect(withVariant(text, { profile: 'linux-6.6', allocator: 'slub' })).toBe('slabscope-scenario 3\n# a test\nprofile linux-6.6\nmachine cpus=2 nodes=1 memory=1M\na = kmalloc(64) on cpu0\n');
  });

  it('sets 7.2 beside any other kernel and 6.6 beside 7.2', () => {
    expect(counterpart({ profile: 'linux-6.12', allocator: 'slub' })).toEqual({ profile: 'linux-7.2', allocator: 'slub' });
    expect(counterpart({ profile: 'linux-7.2', allocator: 'slub' })).toEqual({ profile: 'linux-6.6', allocator: 'slub' });
  });
});
