// PROVISIONAL (to be replaced by the full version): a parse error in the reader's language.
import type { ParseError } from '../core/generated/ParseError';

export function parseErrorText(
  _t: (key: string, args?: Record<string, unknown>) => string,
  error: ParseError,
): { where: string; message: string; hint: string | null } {
  return { where: `line ${error.line}, column ${error.column}`, message: error.message, hint: error.hint };
}
