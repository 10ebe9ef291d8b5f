/** Background work the loop runs: one round at a time, never two of the same work at once. */
export interface LoopWork {
  /**
   * One round. Resolves with how long (ms) until the next round is due; catches its own failures.
   * `signal` aborts when the work is stopped, so a long round can end early.
   */
  tick(signal: AbortSignal): Promise<number>;
}

/** One work's place on the loop. */
export interface LoopEntry {
  /** Runs a round in `delayMs` (0: now) unless one is due sooner; asked during a round, it runs again after it. */
  wake(delayMs?: number): void;
  /** Runs rounds again, the first after the entry's first delay. */
  start(): void;
  /** Runs no more rounds; resolves once a round under way has ended. */
  stop(): Promise<void>;
}

class Entry implements LoopEntry {
  /** When the next round is due (ms since the epoch); Infinity when none is. */
  dueAt: number;
  running?: Promise<void>;
  stopped = false;
  private abort = new AbortController();

  constructor(
    private readonly loop: WorkLoop,
    private readonly work: LoopWork,
    private readonly firstInMs: number,
  ) {
    this.dueAt = Date.now() + firstInMs;
  }

  wake(delayMs = 0): void {
    if (this.stopped) return;
    this.dueAt = Math.min(this.dueAt, Date.now() + delayMs);
    this.loop.setTimer();
  }

  start(): void {
    if (this.loop.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    this.dueAt = Date.now() + this.firstInMs;
    this.loop.setTimer();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.dueAt = Infinity;
    this.abort.abort();
    this.loop.setTimer();
    await this.running;
  }

  /** Starts a round; wakes asked for while it runs are kept, and the sooner of them and its own answer wins. */
  startRound(): void {
    this.dueAt = Infinity;
    this.running = this.work
      .tick(this.abort.signal)
      // A tick catches its own failures; one that escapes must not end the work: tried again after the first delay.
      .catch(() => this.firstInMs)
      .then((delayMs) => {
        this.running = undefined;
        if (!this.stopped) this.dueAt = Math.min(this.dueAt, Date.now() + delayMs);
        this.loop.setTimer();
      });
  }
}

/**
 * One timer for the gateway's background work (status checks, reconciliation runs, relays): it fires
 * when the soonest work is due, runs every work then due, and is set again for the next. Each work
 * says, at the end of its round, when it wants the next; `wake` brings one forward.
 */
export class WorkLoop {
  stopped = false;
  private readonly entries: Entry[] = [];
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;

  /** Runs `work`, its first round after `firstInMs`. */
  add(work: LoopWork, firstInMs: number): LoopEntry {
    const entry = new Entry(this, work, firstInMs);
    this.entries.push(entry);
    this.setTimer();
    return entry;
  }

  /** Clears the timer and waits for every round under way; nothing runs after. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.entries.map((entry) => entry.stop()));
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Sets the one timer for the soonest due work that is not running already. */
  setTimer(): void {
    if (this.stopped) return;
    const at = Math.min(...this.entries.filter((entry) => !entry.running).map((entry) => entry.dueAt));
    if (this.timer && this.timerAt === at) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (at === Infinity) return;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
    // Background work never keeps the process alive.
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const entry of this.entries) if (!entry.running && entry.dueAt <= now) entry.startRound();
    this.setTimer();
  }
}
