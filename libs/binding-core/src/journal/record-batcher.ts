import { record, type Statements } from './prompt-journal.writes';
import { recordMany, type RecordRequest } from './record-many';

/**
 * Why this file exists: a replica's handlers finish their platform calls in bursts (the
 * answers to 16 calls in flight arrive in the same turn of the event loop), and each then
 * journaled its prompt with a statement of its own. A statement costs a binding about 0.08 ms
 * of CPU per output all told (bench:binding with the journal statement skipped), and at c16 /
 * 0 ms the records finished in one turn number 4.4 on average: they are journaled together,
 * in one statement, once the turn's I/O callbacks have run (setImmediate).
 *
 * What each caller sees is what `record` would have answered it: whether its prompt was
 * written. A record alone in its turn uses `record` itself. When the statement for several
 * fails (a row a CHECK refuses, a deadlock, a lost connection), each is journaled again on its
 * own, so one record's failure is its own and never its neighbours'. A second record of a
 * prompt already in the batch waits for the next one: an UPDATE writes a row once.
 */
export class RecordBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly statements: Statements,
    /** Records per statement, at most. */
    private readonly maxBatch = 64,
  ) {}

  record(request: RecordRequest): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const taken = this.waiting;
    this.waiting = [];
    const seen = new Set<string>();
    const batch: Waiting[] = [];
    for (const entry of taken) {
      const key = `${entry.request.key.sessionId}\u0000${entry.request.key.callId}`;
      if (batch.length < this.maxBatch && !seen.has(key)) {
        seen.add(key);
        batch.push(entry);
      } else {
        this.waiting.push(entry);
      }
    }
    if (this.waiting.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    void this.journal(batch);
  }

  private async journal(batch: readonly Waiting[]): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]);
    let written: boolean[];
    try {
      written = await recordMany(
        this.statements,
        batch.map((entry) => entry.request),
      );
    } catch {
      await Promise.all(batch.map((entry) => this.alone(entry)));
      return;
    }
    batch.forEach((entry, i) => entry.resolve(written[i]));
  }

  private async alone({ request, resolve, reject }: Waiting): Promise<void> {
    try {
      const { key, events, state, claimId, postNonce, keepRequest } = request;
      resolve(await record(this.statements, key, events, state, claimId, postNonce, keepRequest));
    } catch (error) {
      reject(error);
    }
  }
}

interface Waiting {
  readonly request: RecordRequest;
  readonly resolve: (written: boolean) => void;
  readonly reject: (error: unknown) => void;
}
