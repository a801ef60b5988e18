// What the pages that send the simulator one long request at a time share (the interleaving
// explorer, live mode, the geometry explorer): leaving the page cancels a request still running,
// so the next page finds the simulator free, and a failure of the simulator's own becomes a
// message in the reader's language.

import { useEffect, useRef } from 'react';
import { isCancelled, ScenarioError, type SimClient } from '../core/client';
import { failureText } from '../scenario/failureText';
import type { FormError } from './sweepForm';

/** A flag the page sets while its request runs on `client`; if the page goes meanwhile, the
 *  request is cancelled (SimClient.cancel). */
export function useCancelOnLeave(client: SimClient) {
  const running = useRef(false);
  useEffect(
    () => () => {
      if (running.current) client.cancel();
    },
    [client],
  );
  return running;
}

/** The message of a request that failed for a reason of the simulator's (not the person's). */
export function simFailure(e: unknown): FormError {
  return { key: 'error.sim', args: { message: e instanceof Error ? e.message : String(e) } };
}

/** What a request on a scenario that failed comes to: null when the person cancelled it; the
 *  scenario's own failure worded for the reader (it does not parse, or its run was refused); or
 *  a failure of the simulator's. */
export function scenarioFailure(e: unknown, t: (key: string, args?: Record<string, unknown>) => string, exists: (key: string) => boolean): FormError | string | null {
  if (isCancelled(e)) return null;
  if (e instanceof ScenarioError) return failureText(t, exists, e);
  return simFailure(e);
}

/** How a page shows what went wrong: the message in the reader's language (a form field an
 *  error names is worded too), and the field, to mark it. */
export function shownFailure(t: (key: string, args?: Record<string, unknown>) => string, error: FormError | string | null): { text: string | null; field: unknown } {
  if (error === null) return { text: null, field: undefined };
  if (typeof error === 'string') return { text: error, field: undefined };
  const field = error.args?.field;
  return { text: t(error.key, { ...error.args, field: field ? t(String(field)) : undefined }), field };
}
