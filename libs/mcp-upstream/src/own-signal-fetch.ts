/**
 * fetch with a signal of its own per request, following the caller's. The SDK's streamable HTTP
 * client hands its one long-lived AbortSignal to every fetch; undici hangs an abort listener on
 * it per request and lets go of it only once that request is garbage-collected, so a busy
 * connection piles up listeners (past 1,500, a MaxListenersExceededWarning with every call).
 * `AbortSignal.any` follows the caller's signal without a listener on it, and the per-request
 * signal goes away with its request.
 */
export const ownSignalFetch: typeof fetch = (input, init) =>
  fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
