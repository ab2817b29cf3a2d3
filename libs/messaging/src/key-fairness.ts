import type { KeyFairness } from './consumer-runner';

/**
 * The fairness docs/protocol.md §2 promises for every consumer, keyed by session: at most 16
 * of one session's messages held, the rest handed back for a second, and a session past 1,000
 * waiting has its excess dead-lettered (`backlog_limit`). One definition, so the session
 * service and the bindings cannot drift apart.
 */
export function perSessionFairness(
  keyOf: (subject: string) => string | undefined,
  {
    maxHeld,
    maxRunningPerKey = 1,
  }: {
    /** Messages held by the runner in all (at least its maxInFlight). */
    maxHeld: number;
    /**
     * Handlers running at once for one session: 1 unless the handler orders a session's
     * messages itself (and parks while it waits its turn).
     */
    maxRunningPerKey?: number;
  },
): KeyFairness {
  return {
    keyOf,
    maxRunningPerKey,
    maxHeldPerKey: 16,
    maxHeld,
    deferMs: 1_000,
    maxDeferredPerKey: 1_000,
  };
}
