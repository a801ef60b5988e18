// Syntax highlighting of scenario format 1 for the editor: a line tokenizer in CodeMirror's
// StreamLanguage form. Tokens are named by @lezer/highlight tags so the editor's theme colours
// them; the parser, not this, decides what is valid.

import { StreamLanguage, type StreamParser, type StringStream } from '@codemirror/language';
import { CALLS, DIRECTIVES, KEYWORDS, MAGIC } from './vocabulary';

const directives = new Set(DIRECTIVES.map((d) => d.word));
const calls = new Set(CALLS.map((c) => c.name));
const keywords = new Set<string>(KEYWORDS);

interface LineState {
  /** Tokens read so far on this line. */
  count: number;
}

export const scenarioParser: StreamParser<LineState> = {
  name: 'slabscope-scenario',
  startState: () => ({ count: 0 }),
  copyState: (s) => ({ count: s.count }),
  token(stream: StringStream, state: LineState): string | null {
    if (stream.sol()) state.count = 0;
    if (stream.eatSpace()) return null;
    const first = state.count === 0;
    state.count++;
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (first && stream.match(MAGIC)) return 'meta';
    if (stream.match(/^0x[0-9a-fA-F]+[KMG]?\b/) || stream.match(/^[0-9]+[KMG]?\b/)) return 'number';
    if (stream.match(/^cpu[0-9]+\b/)) return 'atom';
    const word = stream.match(/^[A-Za-z_][\w.-]*/) as RegExpMatchArray | null;
    if (word) {
      const w = word[0];
      if (stream.peek() === '=') return 'propertyName';
      if (first && directives.has(w)) return 'keyword';
      if (keywords.has(w)) return 'controlKeyword';
      if (calls.has(w) && stream.peek() === '(') return 'variableName.function';
      if (/^(?:__)?GFP_/.test(w)) return 'atom';
      if (w === 'on' || w === 'off') return 'bool';
      return 'variableName';
    }
    if (stream.match(/^\.\.|^\[\]|^[=:,()[\]|]/)) return 'punctuation';
    stream.next();
    return 'invalid';
  },
  languageData: { commentTokens: { line: '#' } },
};

export const scenarioLanguage = StreamLanguage.define(scenarioParser);
