// What the pages that send the simulator one long request at a time share (the interleaving
// explorer, live mode, the geometry explorer): leaving the page cancels a request still running,
// so the next page finds the simulator free, and a failure of the simulator's own becomes a
// message in the reader's language.

import { useEffect, useRef } from 'react';
import type { SimClient } from '../core/client';
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
