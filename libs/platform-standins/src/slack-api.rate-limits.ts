// Slack's per-method rate limits as the stand-in enforces them: a sliding window per method.
// Separate from the fake's routing so the window arithmetic can be read (and changed) alone.
import type { SlackApiFakeOptions } from './slack-api.types';

export class SlackMethodLimits {
  /** Per limited method, when its calls within the window arrived. */
  private readonly arrivals = new Map<string, number[]>();

  constructor(private readonly methodLimits: NonNullable<SlackApiFakeOptions['methodLimits']>) {}

  /** Seconds to wait when this call goes beyond its method's limit; else counts it. */
  overLimit(method: string): number | undefined {
    const rule = this.methodLimits[method];
    if (rule === undefined) return undefined;
    const now = Date.now();
    const window = (this.arrivals.get(method) ?? []).filter((at) => at > now - rule.windowMs);
    this.arrivals.set(method, window);
    if (window.length >= rule.limit) {
      return Math.max(
        1,
        Math.ceil((window[window.length - rule.limit] + rule.windowMs - now) / 1000),
      );
    }
    window.push(now);
    return undefined;
  }
}
