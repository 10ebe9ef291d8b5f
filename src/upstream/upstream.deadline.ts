interface Pending {
  at: number;
  /** Dropped once the call has ended, so nothing is kept for it but its place in the queue. */
  controller?: AbortController;
}

/**
 * Whole-call deadlines for provider calls, all of one length, on a single timer. AbortSignal.timeout
 * costs a timer, a weak reference and a finalizer registration per call, each kept for the whole
 * timeout after the call has ended (15 s of calls at a time under load). Every deadline here is
 * `timeoutMs` after its start, so they expire in the order the calls started: a queue in that order
 * and one timer for its head. A call that timed out is aborted with a TimeoutError, as by AbortSignal.timeout.
 */
export class CallDeadlines {
  private queue: Pending[] = [];
  private head = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly timeoutMs: number) {}

  /** A signal for one call, and `done` to call when it has ended, however it ended. */
  start(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const pending: Pending = { at: Date.now() + this.timeoutMs, controller };
    this.queue.push(pending);
    this.arm();
    return {
      signal: controller.signal,
      done: () => {
        pending.controller = undefined;
      },
    };
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer || this.head === this.queue.length) return;
    this.timer = setTimeout(() => this.expire(), Math.max(0, this.queue[this.head].at - Date.now()));
    // Like AbortSignal.timeout's, it never keeps the process alive.
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const now = Date.now();
    while (this.head < this.queue.length) {
      const first = this.queue[this.head];
      if (first.controller && first.at > now) break;
      first.controller?.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      this.head += 1;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.arm();
  }
}
