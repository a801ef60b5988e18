// One simulator worker, several users of its one open run: the player, and on the lessons page
// the grader of the exercises, which opens the lesson's scenario or a student's variant of it.
// The worker holds a single run (`SimClient.open` replaces it), so every request about a run
// names the scenario it is about, and this opens that scenario first when it is not the one open.
//
// Rules:
//  - The worker answers in the order requests are sent, so what matters is the order of
//    sending: requests are sent one after the other from one queue, and one whose scenario is
//    not the run open is sent after an open of it (and after that open has succeeded). A request
//    never waits for the answer of the one before it; only an open is waited for.
//  - An open that fails, or a restart of the worker after a crash, leaves the worker's run
//    unknown: the next request opens its scenario again.
//  - Opening is the costly part (the whole scenario runs), so the same text is never opened
//    twice in a row.

import type { KernelFiles, Lane, Overview, RunOutline, SimClient, SnapshotQuery, ViewAt } from '../core/client';

export class RunSession {
  /** The text of the run the worker holds (or is opening), null when unknown. */
  private text: string | null = null;
  /** The answer of the last open sent. */
  private opening: Promise<RunOutline> | null = null;
  /** The end of the queue of requests to send. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly client: SimClient) {
    client.subscribe(() => {
      this.text = null;
      this.opening = null;
    });
  }

  /** Runs `text` in the worker and makes it the open run. */
  open(text: string): Promise<RunOutline> {
    return this.send(text, (outline) => Promise.resolve(outline));
  }

  /** Sends the open of `text` now. */
  private openNow(text: string): Promise<RunOutline> {
    this.text = text;
    const opening = this.client.open(text);
    this.opening = opening;
    opening.catch(() => {
      if (this.opening === opening) {
        this.text = null;
        this.opening = null;
      }
    });
    return opening;
  }

  /** Queues `request`, sent once every request queued before it was sent and the worker holds
   *  (or is opening, in order before it) the run of `text`, whose outline it is given. */
  private send<T>(text: string, request: (outline: RunOutline) => Promise<T>): Promise<T> {
    const sent = this.tail.then(async () => {
      const opening = this.text === text && this.opening ? this.opening : this.openNow(text);
      const outline = await opening;
      // Sent from the queue without waiting for its answer: the next request may go at once.
      return { answer: request(outline) };
    });
    this.tail = sent.catch(() => undefined);
    return sent.then((s) => s.answer);
  }

  view(text: string, cursor: number, query: SnapshotQuery): Promise<ViewAt> {
    return this.send(text, () => this.client.view(cursor, query));
  }

  files(text: string, cursor: number, cache: string | null): Promise<KernelFiles> {
    return this.send(text, () => this.client.files(cursor, cache));
  }

  overview(text: string): Promise<Overview> {
    return this.send(text, () => this.client.overview());
  }

  lane(text: string, target: { object: string } | { page: number }): Promise<Lane> {
    return this.send(text, () => this.client.lane(target));
  }

  trace(text: string): Promise<string> {
    return this.send(text, () => this.client.trace());
  }
}

const sessions = new WeakMap<SimClient, RunSession>();

/** The one session of `client`, shared by everything on the page that uses it. */
export function runSession(client: SimClient): RunSession {
  let session = sessions.get(client);
  if (!session) {
    session = new RunSession(client);
    sessions.set(client, session);
  }
  return session;
}
