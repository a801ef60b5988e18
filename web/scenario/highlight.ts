// Syntax highlighting of the scenario format (versions 1 and 2) for the editor: a line
// tokenizer in CodeMirror's StreamLanguage form. Tokens are named by @lezer/highlight tags so
// the editor's theme colours them; the parser, not this, decides what is valid.

import { StreamLanguage, type StreamParser, type StringStream } from '@codemirror/language';
import { CALLS, DIRECTIVES, KEYWORDS, LIST_FUNCTIONS, MAGIC, PRINT, PRINT_FILES } from './vocabulary';

const directives = new Set([...DIRECTIVES.map((d) => d.word), PRINT.word]);
const calls = new Set([...CALLS.map((c) => c.name), ...LIST_FUNCTIONS.map((f) => f.name)]);
const keywords = new Set<string>(KEYWORDS);
const printFiles = new Set<string>(PRINT_FILES);

interface LineState {
  /** Tokens read so far on this line. */
  count: number;
  /** The line is a `print` line. */
  print: boolean;
}

export const scenarioParser: StreamParser<LineState> = {
  name: 'slabscope-scenario',
  startState: () => ({ count: 0, print: false }),
  copyState: (s) => ({ count: s.count, print: s.print }),
  token(stream: StringStream, state: LineState): string | null {
    if (stream.sol()) {
      state.count = 0;
      state.print = false;
    }
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
      if (first && w === PRINT.word && !/^\s*[=[]/.test(stream.string.slice(stream.pos))) state.print = true;
      if (first && directives.has(w) && (w !== PRINT.word || state.print)) return 'keyword';
      if (state.print && state.count === 2 && printFiles.has(w)) return 'atom';
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
