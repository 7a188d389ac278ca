/**
 * Events from a worker to its page, in order with the worker's answer. A comlink-proxied
 * callback posts each call on the proxy's own MessagePort, and the answer of the call that
 * carried it returns on the worker's port; the HTML spec orders messages within one port only,
 * so a page could see `start` resolve ("paused at step 1") before the last step's events arrive
 * (its step and checkpoint). The relay sends without waiting (the run never waits for the page)
 * and `drain()` waits until the page has handled every event sent so far; the worker drains
 * before it answers.
 */

/** A send that returns a promise settled when the receiver has handled the event (a comlink proxy call does). */
type Deliver<E> = (ev: E) => unknown;

interface EventRelay<E> {
  /** Send `ev`; never throws, never waits. A delivery that fails (the page went away) is dropped. */
  send(ev: E): void;
  /** Resolves when every event sent before this call was handled or failed; never rejects. */
  drain(): Promise<void>;
}

/** A relay over `deliver` (a comlink-proxied callback; a plain function works too). */
export function eventRelay<E>(deliver: Deliver<E>): EventRelay<E> {
  const pending = new Set<Promise<unknown>>();
  return {
    send(ev) {
      let p: Promise<unknown>;
      try {
        p = Promise.resolve(deliver(ev));
      } catch {
        return;
      }
      const tracked = p.catch(() => undefined).finally(() => pending.delete(tracked));
      pending.add(tracked);
    },
    async drain() {
      await Promise.all([...pending]);
    },
  };
}
