// The controls and the help rendered to HTML in each language (no DOM here: the behaviour behind
// them is the reducer's, tested in web/timeline/).
import i18next from 'i18next';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Language } from '../i18n/i18n';
import { resources } from '../i18n/resources';
import { SHORTCUTS } from '../timeline/shortcuts';
import { actions, initialTimeline, timelineReducer, type TimelineState } from '../timeline/timeline';
import { ShortcutHelp } from './ShortcutHelp';
import { TimelineControls } from './TimelineControls';

const instances = {} as Record<Language, typeof i18next>;

beforeAll(async () => {
  for (const lng of ['en', 'ko'] as const) {
    const i18n = i18next.createInstance();
    await i18n.use(initReactI18next).init({ resources, lng, fallbackLng: false, interpolation: { escapeValue: false } });
    instances[lng] = i18n;
  }
});

function html(element: ReactElement, lng: Language = 'en'): string {
  return renderToStaticMarkup(createElement(I18nextProvider, { i18n: instances[lng] }, element));
}

function at(cursor: number): TimelineState {
  return timelineReducer(initialTimeline(), actions.load(4000, Array.from({ length: 300 }, (_, i) => 100 + (i + 1) * 13), cursor, 100));
}

function controls(state: TimelineState, lng: Language = 'en', opLabel?: (i: number) => string) {
  return html(createElement(TimelineControls, { state, dispatch: () => {}, opLabel, onHelp: () => {} }), lng);
}

describe('TimelineControls', () => {
  it('has every control, with its test id and an accessible name', () => {
    const out = controls(at(120));
    for (const id of ['first', 'op-back', 'step-back', 'play', 'step-forward', 'op-forward', 'last', 'speed', 'level', 'scrubber', 'jump', 'position', 'help']) {
      expect(out, id).toContain(`data-testid="${id}"`);
    }
    for (const name of ['First step', 'Previous operation', 'Previous step', 'Play', 'Next step', 'Next operation', 'Last step']) {
      expect(out, name).toContain(`aria-label="${name}"`);
    }
    expect(out).toContain('aria-keyshortcuts="Shift+ArrowRight"');
  });

  it('says where the cursor is, in the position text and the scrubber', () => {
    // Cursor 270 is in operation (270 - 100) / 13 rounded up = 14 (1-based).
    const out = controls(at(270), 'en', (i) => `op #${i}`);
    expect(out).toContain('step 270 / 4000 · operation 14 / 300');
    expect(out).toContain('aria-valuetext="step 270 of 4000, operation 14"');
    expect(out).toContain('op #13');
    expect(out).toMatch(/type="range"[^>]*max="4000"/);
  });

  it("inside a concurrent block names the step's own operation, not the one whose end is next", () => {
    const out = html(createElement(TimelineControls, { state: at(270), dispatch: () => {}, opLabel: (i) => `op #${i}`, opAt: 2, onHelp: () => {} }));
    expect(out).toContain('step 270 / 4000 · operation 3 / 300');
    expect(out).toContain('op #2');
  });

  it('names boot steps as such', () => {
    const out = controls(at(50), 'en', () => 'never shown');
    expect(out).toContain('step 50 / 4000 · boot and cache creation');
    expect(out).toContain('before the first operation');
    expect(out).not.toContain('never shown');
  });

  it('shows Pause while playing and marks the ends', () => {
    const playing = timelineReducer(at(10), actions.play());
    expect(controls(playing)).toContain('aria-label="Pause"');
    expect(controls(at(0))).toMatch(/data-testid="step-back"[^>]*aria-disabled="true"/);
    expect(controls(at(4000))).toMatch(/data-testid="step-forward"[^>]*aria-disabled="true"/);
    expect(controls(at(5))).toMatch(/data-testid="step-forward"[^>]*aria-disabled="false"/);
  });

  it('lists the speeds in the unit of the level', () => {
    expect(controls(at(0))).toContain('30 steps/s');
    expect(controls(timelineReducer(at(0), actions.setLevel('op')))).toContain('30 operations/s');
  });

  it('speaks Korean with no key left untranslated', () => {
    const out = controls(at(270), 'ko');
    expect(out).toContain('단계 270 / 4000 · 연산 14 / 300');
    expect(out).toContain('aria-label="다음 단계"');
    expect(out).not.toMatch(/timeline\.\w+/);
    expect(controls(at(0), 'en')).not.toMatch(/timeline\.\w+/);
  });
});

describe('ShortcutHelp', () => {
  it('lists every shortcut in each language', () => {
    for (const lng of ['en', 'ko'] as const) {
      const out = html(createElement(ShortcutHelp, { open: true, onClose: () => {} }), lng);
      for (const s of SHORTCUTS) expect(out, `${lng} ${s.action}`).toContain(`data-action="${s.action}"`);
      expect(out, lng).not.toMatch(/shortcuts\.\w+/);
      expect(out).toContain('aria-labelledby=');
    }
    const en = html(createElement(ShortcutHelp, { open: true, onClose: () => {} }));
    expect(en).toContain('<kbd>Shift</kbd>+<kbd>→</kbd>');
    expect(en).toContain('Keyboard shortcuts');
    expect(html(createElement(ShortcutHelp, { open: true, onClose: () => {} }), 'ko')).toContain('<kbd>스페이스</kbd>');
  });
});
