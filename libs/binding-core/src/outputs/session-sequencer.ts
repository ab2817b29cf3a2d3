/**
 * Runs one session's outputs one at a time, in the order they reached this replica. The
 * runner hands over a batch of deliveries at once and their handlers race to the database,
 * so without this an `Update{Abandoned}` delivered just before its `Request` could lose the
 * race and let the prompt show for a moment (B8), and a session's replies could appear out
 * of order. Other sessions are not held up. Across replicas JetStream gives no such order;
 * the journal's `seq` rule keeps the outcome right there.
 */
export class SessionSequencer {
  /** The last work queued per session; settled entries are removed. */
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * `park` sets the wait for the session's earlier work aside (DeliveredMessage.park), so a
   * flood in one conversation waits its turn without the slots other sessions need.
   */
  run<T>(
    sessionId: string,
    work: () => Promise<T>,
    park: <W>(waiting: Promise<W>) => Promise<W> = (waiting) => waiting,
  ): Promise<T> {
    const previous = this.tails.get(sessionId);
    const result = (previous === undefined ? Promise.resolve() : park(previous)).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(sessionId, tail);
    void tail.then(() => {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    });
    return result;
  }

  /** Sessions with work queued or running. */
  get busySessions(): number {
    return this.tails.size;
  }
}
