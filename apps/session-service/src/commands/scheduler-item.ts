import type { DecisionResult } from '../journal/session-store';
import type { SessionCommand } from '../session/domain/sub-agent';

/** How a submitted command was settled once its message may be acked. */
export type Submitted = 'decided' | 'queued' | 'duplicate' | 'quarantined';

/** A promise settled from outside, once; `settled` tells whether that happened yet. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  settled: boolean;
}

/** One piece of work waiting in a session's mailbox. */
export type SchedulerItem =
  /** Arrived while nothing ran for its session: decided at once, acked at its first commit. */
  | {
      readonly kind: 'direct';
      readonly command: SessionCommand;
      readonly submitted: Deferred<Submitted>;
    }
  /** Waits in `session_inbox`; `position` settles once the row is committed. */
  | {
      readonly kind: 'queued';
      readonly command: SessionCommand;
      readonly position: Promise<string | undefined>;
    }
  | { readonly kind: 'recover' }
  /**
   * S22: a prompt timer's decision, in line with the session's commands. It carries its own
   * ledger key, so `done` settles once it was decided, found a duplicate or a quarantine.
   */
  | {
      readonly kind: 'timer';
      readonly decide: () => Promise<DecisionResult>;
      readonly done: Deferred<void>;
    };

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve: (value) => {
      if (d.settled) return;
      d.settled = true;
      resolve(value);
    },
    reject: (error) => {
      if (d.settled) return;
      d.settled = true;
      reject(error);
    },
  };
  return d;
}
