/**
 * A service that `npm start` runs is in a process group of its own (so a Ctrl-C reaches only
 * the sandbox launcher, which drains it), and gets an IPC channel to the launcher. When that
 * channel closes, the launcher is gone — killed with -9, by the OOM killer, by a CI timeout —
 * and nothing will ever send the SIGTERM that drains the service: it would run on, holding its
 * port. A service started any other way has no channel and is left alone.
 */
export class ParentWatch {
  /** Read at start: the channel, if any, is set up before any of our code runs. */
  private readonly attached = process.connected;
  private gone = false;
  private onGone?: () => void;

  constructor() {
    if (!this.attached) return;
    // A 'disconnect' listener keeps the channel (and so the process) referenced, which a
    // service, listening on a port, is anyway.
    process.once('disconnect', () => {
      this.gone = true;
      this.onGone?.();
    });
  }

  /**
   * `stop` runs once the parent goes; at once if it went while the service was starting,
   * before its stop path existed.
   */
  whenGone(stop: () => void): void {
    if (!this.attached) return;
    this.onGone = stop;
    if (this.gone) stop();
  }
}
