import { Injectable } from '@nestjs/common';

export interface ReadinessCheck {
  /** Shown in the /health/ready body, e.g. "nats", "database", "consumer". */
  readonly name: string;
  check(): boolean | Promise<boolean>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean>;
  details: Record<string, unknown>;
}

/**
 * Components register what they need to be true for the service to take traffic. A check
 * that throws counts as failing, so one broken dependency cannot take the endpoint down.
 */
@Injectable()
export class ReadinessService {
  private readonly checks: ReadinessCheck[] = [];
  private readonly details: Record<string, () => unknown> = {};

  register(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  /** Extra facts for the body that do not decide readiness (e.g. the session-service role). */
  describe(key: string, value: () => unknown): void {
    this.details[key] = value;
  }

  async report(): Promise<ReadinessReport> {
    // Details are read before the checks are awaited, in the same tick as the list of
    // checks is taken: a role read afterwards could claim "active" beside the check list of
    // a standby that took over meanwhile.
    const details = Object.fromEntries(
      Object.entries(this.details).map(([key, value]) => [key, value()]),
    );
    const results = await Promise.all(
      this.checks.map(async (c) => {
        try {
          return [c.name, (await c.check()) === true] as const;
        } catch {
          return [c.name, false] as const;
        }
      }),
    );
    const checks = Object.fromEntries(results);
    return { ready: results.every(([, ok]) => ok), checks, details };
  }
}
