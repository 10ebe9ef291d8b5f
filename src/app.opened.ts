/**
 * What start-up has opened, each with how to close it. Closing runs them last opened first: at
 * shutdown, or at once when a later start-up step throws, so a failed start leaves nothing behind.
 */
export class Opened {
  private readonly closers: (() => Promise<unknown> | void)[] = [];

  /** Registers how to close what a step just opened: it closes before everything opened earlier. */
  add(close: () => Promise<unknown> | void): void {
    this.closers.push(close);
  }

  /** Closes everything, last opened first, each after the one before it has finished. */
  async close(): Promise<void> {
    for (let close = this.closers.pop(); close; close = this.closers.pop()) await close();
  }

  /** Runs start-up `steps`; when one throws, closes what the earlier ones opened, then throws its error. */
  async starting<T>(steps: () => Promise<T>): Promise<T> {
    try {
      return await steps();
    } catch (error) {
      await this.close();
      throw error;
    }
  }
}
