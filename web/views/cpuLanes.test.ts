import { describe, expect, it } from 'vitest';
import type { LaneStep } from '../core/generated/LaneStep';
import { cellKind, laneCells } from './cpuLanes';

const step = (n: number, task: number, key: string): LaneStep => ({ step: n, task, function: 'slab_alloc_node', caption: { key, args: [] } });

describe('CPU lanes', () => {
  it('names each micro-step by what it did', () => {
    expect(cellKind('micro.read_tid')).toBe('load');
    expect(cellKind('micro.cmpxchg_cpu_ok')).toBe('cas-ok');
    expect(cellKind('micro.cmpxchg_slab_failed')).toBe('cas-failed');
    expect(cellKind('micro.cmpxchg_cpu_failed_at')).toBe('cas-failed');
    expect(cellKind('micro.cmpxchg_slab_failed_at')).toBe('cas-failed');
    expect(cellKind('micro.spin_wait')).toBe('spin');
    expect(cellKind('micro.preempted')).toBe('preempt');
    expect(cellKind('step.aba_stale_freelist')).toBe('diagnostic');
  });

  it('shows a window around the cursor, each micro-step in its task’s lane, the current one marked', () => {
    const steps = Array.from({ length: 20 }, (_, i) => step(100 + i, i % 2, i === 7 ? 'micro.cmpxchg_cpu_failed' : 'micro.read_tid'));
    const { cells, first } = laneCells(steps, 108, 6);
    expect(cells).toHaveLength(6);
    expect(first).toBe(4);
    const current = cells.find((c) => c.current);
    expect(current).toMatchObject({ step: 107, lane: 1, kind: 'cas-failed', column: 3 });
    // At the start of the block the window starts at its first micro-step.
    expect(laneCells(steps, 100, 6).first).toBe(0);
  });
});
