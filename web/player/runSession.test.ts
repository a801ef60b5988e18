import { describe, expect, it } from 'vitest';
import type { SimClient } from '../core/client';
import { RunSession } from './runSession';

/** A worker that holds one run, answers in order, and fails to open texts starting with `bad`. */
function fakeClient() {
  const log: string[] = [];
  let open: string | null = null;
  let listener: (() => void) | null = null;
  const later = <T>(f: () => T) => new Promise<T>((resolve, reject) => setTimeout(() => {
    try {
      resolve(f());
    } catch (e) {
      reject(e);
    }
  }));
  const client = {
    subscribe: (l: () => void) => {
      listener = l;
      return () => {};
    },
    open: (text: string) => {
      log.push(`open ${text}`);
      return later(() => {
        if (text.startsWith('bad')) throw new Error('cannot run');
        open = text;
        return { steps: text.length };
      });
    },
    view: (cursor: number) => {
      log.push(`view ${cursor}`);
      return later(() => ({ run: open, cursor }));
    },
    files: () => later(() => ({ run: open })),
  } as unknown as SimClient;
  return { client, log, crash: () => listener?.() };
}

describe('RunSession', () => {
  it('answers each request from the run it names, opening it first when another is open', async () => {
    const { client, log } = fakeClient();
    const session = new RunSession(client);
    await session.open('lesson');
    const [player, grader, playerAgain] = await Promise.all([
      session.view('lesson', 3, { cache: null, slab: null }),
      session.view('variant', 11, { cache: null, slab: null }),
      session.view('lesson', 4, { cache: null, slab: null }),
    ]);
    expect(player).toEqual({ run: 'lesson', cursor: 3 });
    expect(grader).toEqual({ run: 'variant', cursor: 11 });
    expect(playerAgain).toEqual({ run: 'lesson', cursor: 4 });
    expect(log[0]).toBe('open lesson');
  });

  it('never opens the same text twice in a row', async () => {
    const { client, log } = fakeClient();
    const session = new RunSession(client);
    await Promise.all([session.open('a'), session.open('a'), session.view('a', 1, { cache: null, slab: null })]);
    expect(log.filter((l) => l.startsWith('open'))).toEqual(['open a']);
  });

  it('opens again after a failed open or a restart of the worker', async () => {
    const { client, log, crash } = fakeClient();
    const session = new RunSession(client);
    await session.open('a');
    await expect(session.open('bad one')).rejects.toThrow('cannot run');
    expect(await session.files('a', 0, null)).toEqual({ run: 'a' });
    crash();
    await session.view('a', 2, { cache: null, slab: null });
    expect(log.filter((l) => l.startsWith('open'))).toEqual(['open a', 'open bad one', 'open a', 'open a']);
  });
});
