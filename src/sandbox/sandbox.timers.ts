/**
 * Every delayed action of the sandbox goes through one Timers instance, so that
 * close() can cancel all of them at once and the process (or jest) exits cleanly.
 */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private stopped = false;

  /** Runs fn after ms; answers a function that cancels it. Does nothing once cleared. */
  after(ms: number, fn: () => void): () => void {
    if (this.stopped) return () => undefined;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
    return () => {
      clearTimeout(timer);
      this.pending.delete(timer);
    };
  }

  /** Resolves after ms; once cleared, never: whatever awaits it is abandoned with the sandbox. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  /** Cancels every pending timer and refuses new ones. */
  clear(): void {
    this.stopped = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
