/**
 * A mailbox per session: each session's items are processed one at a time, in the order they
 * were posted, while up to `maxActive` sessions are processed at once (TOLLGATE_MAX_TURNS;
 * S14, S15). A session past the limit waits its turn, first come first served; a session
 * whose turn ends with items left goes to the front, so it cannot be starved by newcomers.
 * What an item means, and what its failure does, is the owner's (SessionScheduler).
 */
export interface SessionMailboxOptions<I> {
  readonly maxActive: number;
  /** Processes one item; the next item of the session waits until it settles. */
  readonly process: (sessionId: string, item: I) => Promise<void>;
  /**
   * `process` threw while the mailbox was not stopping: a bug, as the owner settles its own
   * failures. The item is dropped (not retried in a tight loop) and handed over here.
   */
  readonly onFailure: (sessionId: string, item: I, error: unknown) => void;
  /** Sessions being processed right now, after every change. */
  readonly onActive?: (active: number) => void;
}

interface Box<I> {
  readonly sessionId: string;
  readonly items: I[];
  started: boolean;
  /** In `waiting` for a slot. */
  waiting: boolean;
}

export class SessionMailbox<I> {
  private readonly boxes = new Map<string, Box<I>>();
  private readonly waiting: Box<I>[] = [];
  private readonly running = new Set<Promise<void>>();
  private active = 0;
  private stopping = false;

  constructor(private readonly options: SessionMailboxOptions<I>) {}

  /** Whether an item posted for this session now would start at once. */
  wouldStartNow(sessionId: string): boolean {
    return !this.boxes.has(sessionId) && this.active < this.options.maxActive && !this.stopping;
  }

  post(sessionId: string, item: I): void {
    const box = this.boxes.get(sessionId) ?? this.open(sessionId);
    box.items.push(item);
    this.start(box);
  }

  /** Sessions being processed right now. */
  get activeSessions(): number {
    return this.active;
  }

  /** Sessions with items, being processed or waiting for a slot. */
  get busySessions(): number {
    return this.boxes.size;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * Starts nothing more and waits up to `deadlineMs` for what is being processed. Items not
   * started stay where they are (the owner's journal holds them for the next process).
   */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    await Promise.race([Promise.all([...this.running]), deadline]);
    clearTimeout(timer);
  }

  private open(sessionId: string): Box<I> {
    const box: Box<I> = { sessionId, items: [], started: false, waiting: false };
    this.boxes.set(sessionId, box);
    return box;
  }

  private start(box: Box<I>): void {
    if (box.started) return;
    if (this.active >= this.options.maxActive || this.stopping) {
      if (!box.waiting) {
        box.waiting = true;
        this.waiting.push(box);
      }
      return;
    }
    box.started = true;
    this.active += 1;
    this.options.onActive?.(this.active);
    const run = this.run(box);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  private async run(box: Box<I>): Promise<void> {
    try {
      while (box.items.length > 0 && !this.stopping) {
        const item = box.items[0];
        if (item !== undefined) await this.options.process(box.sessionId, item);
        box.items.shift();
      }
    } catch (error) {
      // Only a stop interrupts the owner's retries; anything else is a bug.
      if (!this.stopping) {
        const dropped = box.items.shift();
        if (dropped !== undefined) this.options.onFailure(box.sessionId, dropped, error);
      }
    } finally {
      box.started = false;
      this.active -= 1;
      this.options.onActive?.(this.active);
      // Checked synchronously after the last await, so no item slips in unseen.
      if (box.items.length === 0) this.boxes.delete(box.sessionId);
      else if (!this.stopping) {
        box.waiting = true;
        this.waiting.unshift(box);
      }
      this.next();
    }
  }

  private next(): void {
    while (this.active < this.options.maxActive && !this.stopping) {
      const box = this.waiting.shift();
      if (!box) return;
      box.waiting = false;
      this.start(box);
    }
  }
}
