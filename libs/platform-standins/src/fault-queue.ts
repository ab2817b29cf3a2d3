/** Narrows a fault to the calls of one client (a binding replica's URL path) or one channel. */
export interface FaultScope {
  client?: string;
  channel?: string;
}

/**
 * What goes wrong on the way to any platform, which every fake can inject alike; each
 * platform's fault adds its own refusal (Slack's `ok: false` error, Discord's and
 * Mattermost's 4xx bodies), and answers a rate limit in its own dialect.
 */
export type TransportFault =
  | { status: 500 | 502 | 503 | 504 }
  /** A 429 whose `Retry-After` is this many seconds. */
  | { rateLimit: number }
  /** Holds the request for `hangMs`, then processes it; if the client gave up meanwhile, nothing is applied. */
  | { hangMs: number }
  /** Applies the call, then never answers (or answers after `answerAfterMs`, typically past the client's timeout). */
  | { acceptThenTimeout: true; answerAfterMs?: number };

/**
 * The faults a platform fake has been told to inject, first registered first matched: the
 * next `times` calls to `call` (`'*'` for any) within `scope` get `fault`.
 */
export class FaultQueue<Call extends string, Fault> {
  private entries: { call: Call | '*'; fault: Fault; remaining: number; scope: FaultScope }[] = [];

  add(call: Call | '*', fault: Fault, times: number, scope: FaultScope): void {
    this.entries.push({ call, fault, remaining: times, scope });
  }

  clear(): void {
    this.entries = [];
  }

  /** The fault for this call, if one is pending; it counts as used. */
  take(call: Call, client: string | undefined, channel: string | undefined): Fault | undefined {
    const entry = this.entries.find(
      (f) =>
        (f.call === call || f.call === '*') &&
        (f.scope.client === undefined || f.scope.client === client) &&
        (f.scope.channel === undefined || f.scope.channel === channel),
    );
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.entries.splice(this.entries.indexOf(entry), 1);
    return entry.fault;
  }
}
