// The scenario editor: CodeMirror with the scenario format's highlighting, completion of
// directives, calls, caches, CPUs and names, and the simulator's parse error shown inline (at
// its line and column, in the reader's language, with its hint) and below the text. The line
// of the step the player shows is marked (when the editor holds the text being run). Loaded
// only when the editor is first opened (it is the heaviest code of the page).

import { autocompletion, closeBrackets, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, StateEffect, StateField } from '@codemirror/state';
import { Decoration, EditorView, keymap, lineNumbers, placeholder, type DecorationSet } from '@codemirror/view';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { ParseError } from '../core/client';
import { completionsAt } from '../scenario/complete';
import { FORMAT_VERSION, MAGIC } from '../scenario/vocabulary';
import { scenarioLanguage } from '../scenario/highlight';
import { parseErrorText } from '../scenario/parseErrorText';

type ParseErrorText = ReturnType<typeof parseErrorText>;

export interface ScenarioEditorProps {
  /** The text to show; a new value from outside replaces the editor's content. */
  value: string;
  onChange: (text: string) => void;
  /** Parses without running: null when the text parses. */
  check: (text: string) => Promise<ParseError | null>;
  /** Ctrl/Cmd+Enter. */
  onRun: () => void;
  /** The line (1-based) of the step the player shows, marked; null for none. */
  activeLine?: number | null;
}

/** Sets the marked line (null: none). */
const setRunLine = StateEffect.define<number | null>();

/** The marked line: one line decoration, moved with edits, replaced by `setRunLine`. */
const runLine = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setRunLine)) continue;
      const line = e.value;
      next =
        line === null || line < 1 || line > tr.state.doc.lines
          ? Decoration.none
          : Decoration.set([Decoration.line({ class: 'cm-run-line', attributes: { 'data-testid': 'editor-run-line' } }).range(tr.state.doc.line(line).from)]);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** The offset of 1-based `line`, `column` in `doc`, clamped to the document. */
function offsetOf(state: EditorState, line: number, column: number): number {
  const l = state.doc.line(Math.min(Math.max(1, line), state.doc.lines));
  return Math.min(l.from + Math.max(0, column - 1), l.to);
}

function complete(context: CompletionContext): CompletionResult | null {
  const found = completionsAt(context.state.doc.toString(), context.pos);
  if (!found || (found.from === context.pos && !context.explicit && found.options.length > 12)) return null;
  return { from: found.from, options: found.options, validFor: /^[\w.-]*$/ };
}

/** The callbacks and translation of the latest render, which the editor's extensions (made once)
 *  read. */
interface Latest {
  onChange: (text: string) => void;
  check: (text: string) => Promise<ParseError | null>;
  onRun: () => void;
  t: TFunction;
}

/** The linter that has the simulator parse the text (300 ms after typing stops) and marks the
 *  parse error at its line and column, worded in the reader's language. `onChecking` hears a
 *  check start and end; `onError` what a check of the text still shown found (null: it parses). */
function parseErrorLinter(latest: RefObject<Latest>, onChecking: (checking: boolean) => void, onError: (error: ParseError | null) => void) {
  return linter(
    async (v): Promise<Diagnostic[]> => {
      onChecking(true);
      const text = v.state.doc.toString();
      let error: ParseError | null;
      try {
        error = await latest.current.check(text);
      } catch {
        error = null;
      }
      onChecking(false);
      if (v.state.doc.toString() !== text) return [];
      onError(error);
      if (!error) return [];
      const shown = { error, text: parseErrorText(latest.current.t, error) };
      const from = offsetOf(v.state, error.line, error.column);
      const lineEnd = v.state.doc.lineAt(from).to;
      return [
        {
          from,
          to: Math.max(from, Math.min(lineEnd, from + 1)),
          severity: 'error',
          message: shown.text.hint ? `${shown.text.message}\n${shown.text.hint}` : shown.text.message,
          source: shown.text.where,
        },
      ];
    },
    { delay: 300 },
  );
}

export default function ScenarioEditor({ value, onChange, check, onRun, activeLine = null }: ScenarioEditorProps) {
  const { t, i18n } = useTranslation();
  const host = useRef<HTMLDivElement | null>(null);
  const view = useRef<EditorView | null>(null);
  const [error, setError] = useState<ParseError | null>(null);
  // Worded at render time, so a change of language rewords it at once.
  const problem: { error: ParseError; text: ParseErrorText } | null = error ? { error, text: parseErrorText(t, error) } : null;
  const [checking, setChecking] = useState(false);
  // The latest callbacks and translation, read by the editor's extensions (made once).
  const latest = useRef<Latest>({ onChange, check, onRun, t });
  useEffect(() => {
    latest.current = { onChange, check, onRun, t };
  });
  const lintCompartment = useRef(new Compartment());

  useEffect(() => {
    if (!host.current) return undefined;
    const lint = parseErrorLinter(latest, setChecking, setError);
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          closeBrackets(),
          scenarioLanguage,
          syntaxHighlighting(defaultHighlightStyle),
          autocompletion({ override: [complete] }),
          lintGutter(),
          lintCompartment.current.of(lint),
          placeholder(`${MAGIC} ${FORMAT_VERSION}`),
          runLine,
          keymap.of([
            { key: 'Mod-Enter', run: () => (latest.current.onRun(), true) },
            ...completionKeymap,
            ...defaultKeymap,
            ...historyKeymap,
            indentWithTab,
          ]),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) latest.current.onChange(u.state.doc.toString());
          }),
          EditorView.contentAttributes.of({ 'aria-label': t('editor.label'), 'data-testid': 'editor-text' }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; `value` changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A value from outside (a preset, a file, a link) replaces the content.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  // The line of the step shown follows the player (no scrolling: the reader may be reading
  // elsewhere in the text).
  useEffect(() => {
    view.current?.dispatch({ effects: setRunLine.of(activeLine) });
  }, [activeLine, value]);

  // The inline message follows the language too.
  useEffect(() => {
    if (view.current) forceLinting(view.current);
  }, [i18n.language, t]);

  const jump = () => {
    const v = view.current;
    if (!v || !problem) return;
    const at = offsetOf(v.state, problem.error.line, problem.error.column);
    v.dispatch({ selection: { anchor: at }, scrollIntoView: true });
    v.focus();
  };

  return (
    <div className="scenario-editor">
      <div ref={host} className="editor-host" />
      <EditorStatus problem={problem} checking={checking} onJump={jump} t={t} />
    </div>
  );
}

/** Under the text: the parse error (its place, a button that moves the cursor there; the message
 *  and hint), or that a check is under way, or that the text parses. Announced as it changes. */
function EditorStatus({ problem, checking, onJump, t }: { problem: { error: ParseError; text: ParseErrorText } | null; checking: boolean; onJump: () => void; t: TFunction }) {
  return (
    <p className="editor-status" role="status" aria-live="polite" data-testid="editor-status">
      {problem ? (
        <>
          <button type="button" className="linkish" onClick={onJump} data-testid="editor-error-where">
            {problem.text.where}
          </button>
          {': '}
          <span data-testid="editor-error" data-key={problem.error.key}>
            {problem.text.message}
          </span>
          {problem.text.hint && (
            <span className="hint" data-testid="editor-hint">
              {' '}
              {t('editor.hint', { hint: problem.text.hint })}
            </span>
          )}
        </>
      ) : checking ? (
        t('editor.checking')
      ) : (
        t('editor.ok')
      )}
    </p>
  );
}
