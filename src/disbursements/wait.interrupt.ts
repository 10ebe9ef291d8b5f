/**
 * Waits that a lasting promise (a watcher's stop, a credential's expiry) cuts short, without
 * Promise.race's leak: a race leaves a reaction on every promise it races until that promise
 * settles, so racing each event against a stop that comes only when the subscriber leaves kept one
 * per event (about 300 bytes) for as long as the subscription lived. Here the lasting promise gets
 * one reaction, once, and a wait leaves one only on the promise it waits for. One wait at a time.
 */
export class Interruptible<E> {
  private ended?: { value: E };
  private wake?: (value: E) => void;

  constructor(end: Promise<E>) {
    void end.then((value) => {
      this.ended = { value };
      this.wake?.(value);
    });
  }

  /** `promise`'s outcome, or the lasting promise's value if that settles first. */
  wait<T>(promise: Promise<T>): Promise<T | E> {
    if (this.ended) return Promise.resolve(this.ended.value);
    return new Promise<T | E>((resolve, reject) => {
      this.wake = resolve;
      promise.then(resolve, reject);
    });
  }
}

/** What a wait answers when the watcher ended first. */
export const STOPPED = Symbol('stopped');

/** Waits a Repeater's `stop` cuts short: they answer STOPPED once it has stopped. */
export function untilStopped(stop: Promise<unknown>): Interruptible<typeof STOPPED> {
  return new Interruptible(stop.then((): typeof STOPPED => STOPPED));
}
