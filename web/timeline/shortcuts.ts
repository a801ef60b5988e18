// Keyboard shortcuts: one table, read by the key handler (`actionForKey`) and by the help
// overlay (ShortcutHelp), so the two cannot disagree. Pure: no DOM access beyond reading the
// fields of the event-like value it is given.
//
// Rules:
//  - Keys typed into a text field, a number or range box, a select or contenteditable text are
//    the field's own, never shortcuts. Space and Enter on a button, link or summary are left to
//    the element (the browser clicks it), so the click is not doubled by a shortcut.
//  - Ctrl, Meta (Cmd) and Alt combinations belong to the browser and the system.
//  - A held key repeats only the moves and speed changes (REPEATABLE); the others (play/pause,
//    help, language, ...) act once per press, so holding Space does not flicker.
//  - Letters match either case and, when an input method turns the key into another script
//    (a Korean IME gives 'ㅎ' for the G key), by their physical key `code`.

/** What a shortcut does. Timeline actions share their names with the reducer's actions. */
export type ShortcutAction =
  | 'stepForward'
  | 'stepBack'
  | 'opForward'
  | 'opBack'
  | 'toggle'
  | 'first'
  | 'last'
  | 'faster'
  | 'slower'
  | 'jump'
  | 'follow'
  | 'help'
  | 'close'
  | 'language';

/** The shortcut actions the timeline reducer handles itself (`{ type: action }`). */
export const TIMELINE_SHORTCUTS = ['stepForward', 'stepBack', 'opForward', 'opBack', 'toggle', 'first', 'last', 'faster', 'slower'] as const;
export type TimelineShortcut = (typeof TIMELINE_SHORTCUTS)[number];
/** Shortcuts that act again while their key is held down. */
export const REPEATABLE: ReadonlySet<ShortcutAction> = new Set(['stepForward', 'stepBack', 'opForward', 'opBack', 'faster', 'slower']);

export function isTimelineShortcut(action: ShortcutAction): action is TimelineShortcut {
  return (TIMELINE_SHORTCUTS as readonly string[]).includes(action);
}

/** The rest: the app decides what they do. */
export type AppShortcut = Exclude<ShortcutAction, TimelineShortcut>;

export interface KeyCombo {
  /** `KeyboardEvent.key`: a single character, or a named key such as 'ArrowRight'. */
  readonly key: string;
  /** For named keys: whether Shift must be held (it must not be, when false or absent). */
  readonly shift?: boolean;
  /** For letters: the physical key (`KeyboardEvent.code`), used when `key` is another script. */
  readonly code?: string;
}

export interface Shortcut {
  readonly action: ShortcutAction;
  /** Any of these keys triggers it; the first is the one shown in the help. */
  readonly keys: readonly KeyCombo[];
  /** i18n key of the one-line description. */
  readonly description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'stepForward', keys: [{ key: 'ArrowRight' }], description: 'shortcuts.stepForward' },
  { action: 'stepBack', keys: [{ key: 'ArrowLeft' }], description: 'shortcuts.stepBack' },
  { action: 'opForward', keys: [{ key: 'ArrowRight', shift: true }], description: 'shortcuts.opForward' },
  { action: 'opBack', keys: [{ key: 'ArrowLeft', shift: true }], description: 'shortcuts.opBack' },
  { action: 'toggle', keys: [{ key: ' ' }], description: 'shortcuts.toggle' },
  { action: 'first', keys: [{ key: 'Home' }], description: 'shortcuts.first' },
  { action: 'last', keys: [{ key: 'End' }], description: 'shortcuts.last' },
  // '=' is '+' without Shift on many layouts; the number pad's keys report '+' and '-'.
  { action: 'faster', keys: [{ key: '+' }, { key: '=' }], description: 'shortcuts.faster' },
  { action: 'slower', keys: [{ key: '-' }, { key: '_' }], description: 'shortcuts.slower' },
  { action: 'jump', keys: [{ key: 'g', code: 'KeyG' }], description: 'shortcuts.jump' },
  { action: 'follow', keys: [{ key: 'f', code: 'KeyF' }], description: 'shortcuts.follow' },
  { action: 'help', keys: [{ key: '?' }], description: 'shortcuts.help' },
  { action: 'close', keys: [{ key: 'Escape' }], description: 'shortcuts.closeOverlay' },
  { action: 'language', keys: [{ key: 'l', code: 'KeyL' }], description: 'shortcuts.language' },
];

/** The fields of a KeyboardEvent that decide its shortcut; a real KeyboardEvent fits. */
export interface KeyLike {
  readonly key: string;
  readonly code?: string;
  readonly shiftKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  /** Set when the key is held down and the press is an automatic repeat. */
  readonly repeat?: boolean;
  /** Set while an input method is composing text. */
  readonly isComposing?: boolean;
  /** The event's target; only its `tagName`, `type` and `isContentEditable` are read. */
  readonly target?: unknown;
}

const TEXT_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);
const CLICKABLE_TAGS = new Set(['BUTTON', 'A', 'SUMMARY']);

/** The shortcut a key press asks for, or null when it is not one (or belongs to its target). */
export function actionForKey(event: KeyLike): ShortcutAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return null;
  const tag = targetTag(event.target);
  if (tag !== null && TEXT_TAGS.has(tag)) return null;
  if (isEditable(event.target)) return null;
  if ((event.key === ' ' || event.key === 'Enter') && tag !== null && CLICKABLE_TAGS.has(tag)) return null;
  const shortcut = SHORTCUTS.find((s) => s.keys.some((combo) => matches(combo, event)));
  if (!shortcut || (event.repeat && !REPEATABLE.has(shortcut.action))) return null;
  return shortcut.action;
}

function matches(combo: KeyCombo, event: KeyLike): boolean {
  if ([...combo.key].length === 1) {
    // A character already says whether Shift was needed to type it ('?', '+').
    if (event.key.toLowerCase() === combo.key) return true;
    return combo.code !== undefined && event.code === combo.code && !isLatinLetter(event.key);
  }
  return event.key === combo.key && event.shiftKey === (combo.shift ?? false);
}

function isLatinLetter(key: string): boolean {
  return /^[a-z]$/i.test(key);
}

function targetTag(target: unknown): string | null {
  if (typeof target !== 'object' || target === null) return null;
  const tag = (target as { tagName?: unknown }).tagName;
  return typeof tag === 'string' ? tag.toUpperCase() : null;
}

function isEditable(target: unknown): boolean {
  return typeof target === 'object' && target !== null && (target as { isContentEditable?: unknown }).isContentEditable === true;
}

/**
 * How a key is shown in the help, part by part: symbols for arrows, letters as typed (lower
 * case, as pressed without Shift), and i18n keys (`i18n: true`) for Space and Shift, which the
 * caller translates.
 */
export function keyLabelParts(combo: KeyCombo): { text: string; i18n: boolean }[] {
  const names: Record<string, { text: string; i18n: boolean }> = {
    ArrowRight: { text: '→', i18n: false },
    ArrowLeft: { text: '←', i18n: false },
    ' ': { text: 'shortcuts.keys.space', i18n: true },
    Escape: { text: 'Esc', i18n: false },
    '-': { text: '−', i18n: false },
  };
  const main = names[combo.key] ?? { text: combo.key, i18n: false };
  return combo.shift ? [{ text: 'shortcuts.keys.shift', i18n: true }, main] : [main];
}

/** The `aria-keyshortcuts` value of an action ("Shift+ArrowRight", "Space"), or undefined. */
export function ariaKeyShortcuts(action: ShortcutAction): string | undefined {
  const shortcut = SHORTCUTS.find((s) => s.action === action);
  if (!shortcut) return undefined;
  return shortcut.keys.map((k) => `${k.shift ? 'Shift+' : ''}${k.key === ' ' ? 'Space' : k.key}`).join(' ');
}
