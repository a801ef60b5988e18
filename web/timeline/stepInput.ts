// Reads the jump-to-step box. Only a whole number in [0, steps], in ASCII digits (spaces around
// it allowed), is a step; anything else is refused whole rather than guessed at, so a typo never
// moves the cursor somewhere the person did not ask for.

export type StepInput = { ok: true; cursor: number } | { ok: false };

/** Digits beyond this many cannot name a step of any run the simulator records. */
const MAX_DIGITS = 12;

export function parseStepInput(text: string, steps: number): StepInput {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_DIGITS || !/^[0-9]+$/.test(trimmed)) return { ok: false };
  const cursor = Number(trimmed);
  return cursor <= steps ? { ok: true, cursor } : { ok: false };
}
