import { describe, expect, it } from 'vitest';
import en from '../i18n/en.json';
import { SHORTCUTS, TIMELINE_SHORTCUTS, actionForKey, ariaKeyShortcuts, isTimelineShortcut, keyLabelParts, type KeyLike } from './shortcuts';

function press(key: string, extra: Partial<KeyLike> = {}): KeyLike {
  return { key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, target: { tagName: 'BODY' }, ...extra };
}

describe('actionForKey', () => {
  it('maps the keys of the table', () => {
    expect(actionForKey(press('ArrowRight'))).toBe('stepForward');
    expect(actionForKey(press('ArrowLeft'))).toBe('stepBack');
    expect(actionForKey(press('ArrowRight', { shiftKey: true }))).toBe('opForward');
    expect(actionForKey(press('ArrowLeft', { shiftKey: true }))).toBe('opBack');
    expect(actionForKey(press(' '))).toBe('toggle');
    expect(actionForKey(press('Home'))).toBe('first');
    expect(actionForKey(press('End'))).toBe('last');
    expect(actionForKey(press('+', { shiftKey: true }))).toBe('faster');
    expect(actionForKey(press('='))).toBe('faster');
    expect(actionForKey(press('-'))).toBe('slower');
    expect(actionForKey(press('g'))).toBe('jump');
    expect(actionForKey(press('f'))).toBe('follow');
    expect(actionForKey(press('?', { shiftKey: true }))).toBe('help');
    expect(actionForKey(press('Escape'))).toBe('close');
    expect(actionForKey(press('l'))).toBe('language');
  });

  it('matches letters in either case and by physical key under an input method', () => {
    expect(actionForKey(press('G', { shiftKey: true }))).toBe('jump');
    expect(actionForKey(press('ㅎ', { code: 'KeyG' }))).toBe('jump');
    expect(actionForKey(press('ㅣ', { code: 'KeyL' }))).toBe('language');
    // A Latin letter on the G key of another layout is that letter, not 'g'.
    expect(actionForKey(press('u', { code: 'KeyG' }))).toBeNull();
  });

  it('leaves other keys and modified keys alone', () => {
    for (const key of ['a', 'Enter', 'Tab', 'ArrowUp', 'PageDown', 'F5']) expect(actionForKey(press(key)), key).toBeNull();
    expect(actionForKey(press('ArrowRight', { ctrlKey: true }))).toBeNull();
    expect(actionForKey(press('l', { metaKey: true }))).toBeNull();
    expect(actionForKey(press('f', { altKey: true }))).toBeNull();
    expect(actionForKey(press('g', { isComposing: true }))).toBeNull();
  });

  it('ignores keys typed into fields and editable text', () => {
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT', 'input']) {
      expect(actionForKey(press('ArrowRight', { target: { tagName } })), tagName).toBeNull();
      expect(actionForKey(press(' ', { target: { tagName } })), tagName).toBeNull();
    }
    expect(actionForKey(press('g', { target: { tagName: 'DIV', isContentEditable: true } }))).toBeNull();
  });

  it('leaves Space on a button to the button, but not the other keys', () => {
    expect(actionForKey(press(' ', { target: { tagName: 'BUTTON' } }))).toBeNull();
    expect(actionForKey(press(' ', { target: { tagName: 'A' } }))).toBeNull();
    expect(actionForKey(press('ArrowRight', { target: { tagName: 'BUTTON' } }))).toBe('stepForward');
  });

  it('repeats moves while a key is held, but not toggles', () => {
    expect(actionForKey(press('ArrowRight', { repeat: true }))).toBe('stepForward');
    expect(actionForKey(press('ArrowLeft', { repeat: true, shiftKey: true }))).toBe('opBack');
    expect(actionForKey(press('+', { repeat: true }))).toBe('faster');
    for (const key of [' ', '?', 'l', 'g', 'f', 'Escape', 'Home']) expect(actionForKey(press(key, { repeat: true })), key).toBeNull();
  });

  it('works without a target', () => {
    expect(actionForKey(press('End', { target: null }))).toBe('last');
    expect(actionForKey(press('End', { target: undefined }))).toBe('last');
  });
});

describe('the shortcut table', () => {
  it('has one entry per action, and no key is claimed twice', () => {
    const actions = SHORTCUTS.map((s) => s.action);
    expect(new Set(actions).size).toBe(actions.length);
    const combos = SHORTCUTS.flatMap((s) => s.keys.map((k) => `${k.key}|${k.shift ?? false}`));
    expect(new Set(combos).size).toBe(combos.length);
    for (const a of TIMELINE_SHORTCUTS) expect(actions).toContain(a);
  });

  it('every key of the table maps back to its own action', () => {
    for (const s of SHORTCUTS) {
      for (const k of s.keys) expect(actionForKey(press(k.key, { shiftKey: k.shift ?? false })), s.action).toBe(s.action);
    }
  });

  it('every description and key name has an English string', () => {
    const lookup = (path: string) => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], en);
    for (const s of SHORTCUTS) {
      expect(typeof lookup(s.description), s.description).toBe('string');
      for (const k of s.keys) {
        for (const part of keyLabelParts(k)) if (part.i18n) expect(typeof lookup(part.text), part.text).toBe('string');
      }
    }
  });

  it('tells which actions the timeline reducer handles', () => {
    expect(isTimelineShortcut('stepForward')).toBe(true);
    expect(isTimelineShortcut('faster')).toBe(true);
    expect(isTimelineShortcut('help')).toBe(false);
  });

  it('writes aria-keyshortcuts values', () => {
    expect(ariaKeyShortcuts('opForward')).toBe('Shift+ArrowRight');
    expect(ariaKeyShortcuts('toggle')).toBe('Space');
    expect(ariaKeyShortcuts('faster')).toBe('+ =');
  });

  it('labels keys with symbols and lower-case letters', () => {
    expect(keyLabelParts({ key: 'ArrowRight', shift: true })).toEqual([
      { text: 'shortcuts.keys.shift', i18n: true },
      { text: '→', i18n: false },
    ]);
    expect(keyLabelParts({ key: 'g' })).toEqual([{ text: 'g', i18n: false }]);
    expect(keyLabelParts({ key: '-' })).toEqual([{ text: '−', i18n: false }]);
  });
});
