/**
 * The operator's reload signal, SIGHUP, heard from the process's first moment: with no listener,
 * Node's default ends the process, and a start takes seconds (the database, its migrations, the
 * first checkpoints). main.ts imports this module before anything else that takes time.
 */
class ReloadSignal {
  /** The reload, once the gateway is ready to run it. */
  private reload?: () => void;
  /** A SIGHUP came before then. */
  private waiting = false;

  constructor() {
    process.on('SIGHUP', () => {
      if (this.reload) this.reload();
      else this.waiting = true;
    });
  }

  /**
   * The gateway is ready: every SIGHUP from now runs `reload`, and one asked for during start-up
   * (however many came) runs now. Answers whether one had waited.
   */
  ready(reload: () => void): boolean {
    this.reload = reload;
    if (!this.waiting) return false;
    this.waiting = false;
    reload();
    return true;
  }
}

export const reloadSignal = new ReloadSignal();
