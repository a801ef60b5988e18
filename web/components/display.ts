// How the app is displayed, chosen by the reader and kept in this browser: the theme (the
// system's, light or dark) and large text (for projectors). Both are classes on <html>
// (`theme-light`, `theme-dark`, `large-text`) that styles.css reads; the stage also lays itself
// out larger under large text.

import { useSyncExternalStore } from 'react';

export type Theme = 'system' | 'light' | 'dark';

export interface Display {
  theme: Theme;
  largeText: boolean;
}

export const DISPLAY_KEY = 'slabscope.display.v1';

const listeners = new Set<() => void>();
let current: Display = read();

function read(): Display {
  try {
    const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(DISPLAY_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (parsed && typeof parsed === 'object') {
      const p = parsed as Partial<Display>;
      const theme = p.theme === 'light' || p.theme === 'dark' ? p.theme : 'system';
      return { theme, largeText: p.largeText === true };
    }
  } catch {
    // storage refused or not JSON: the defaults
  }
  return { theme: 'system', largeText: false };
}

/** Puts the display's classes on <html>. */
export function applyDisplay(d: Display = current): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement.classList;
  root.toggle('theme-light', d.theme === 'light');
  root.toggle('theme-dark', d.theme === 'dark');
  root.toggle('large-text', d.largeText);
}

export function setDisplay(change: Partial<Display>): void {
  current = { ...current, ...change };
  try {
    localStorage.setItem(DISPLAY_KEY, JSON.stringify(current));
  } catch {
    // kept for this page only
  }
  applyDisplay(current);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useDisplay(): Display {
  return useSyncExternalStore(
    subscribe,
    () => current,
    () => current,
  );
}
