/** Below this a platform call cannot reasonably complete at all. */
const MIN_CALL_TIMEOUT_MS = 250;

/**
 * How long one platform call may take, for every binding. It must end well inside the
 * prompt's lease (2 × ack_wait), or another replica could take the prompt over while the call
 * may still land; a third of ack_wait keeps a hung call from holding its message anywhere near
 * ack_wait (the runner's working() extends it meanwhile, so it is not redelivered). It must
 * also end inside the shutdown drain, so a stopping replica settles, and releases the lease
 * of, every message it holds instead of leaving a prompt leased to a process that is gone.
 */
export function platformCallTimeoutMs(settings: {
  requestedMs: number;
  ackWaitMs: number;
  drainMs: number;
}): number {
  const { requestedMs, ackWaitMs, drainMs } = settings;
  // A zero drain hands every message back at once: no timeout can help it.
  const drainBound = drainMs > 0 ? Math.floor(drainMs / 2) : Infinity;
  return Math.max(
    MIN_CALL_TIMEOUT_MS,
    Math.min(requestedMs, Math.floor(ackWaitMs / 3), drainBound),
  );
}
