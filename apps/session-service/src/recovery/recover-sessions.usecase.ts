import type { Logger } from 'pino';
import type { SessionStore } from '../journal/session-store';
import { decideRecovery } from '../session/domain/session.decider';

/**
 * On every start (and on taking over from another instance), each session the projection
 * says is parked journals SessionRecovered and refreshes its prompts, so approvers see the
 * prompt is still valid. Sessions are loaded one at a time and not kept in memory.
 */
export class RecoverSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly logger: Logger,
  ) {}

  async execute(): Promise<{ sessions: number; refreshed: number }> {
    const started = Date.now();
    let sessions = 0;
    let refreshed = 0;
    for (const sessionId of await this.store.parkedSessionIds()) {
      const result = await this.store.decide(sessionId, undefined, (recorder) => {
        decideRecovery(recorder);
      });
      if (result.kind === 'decided' && result.events > 0) {
        sessions += 1;
        refreshed += result.outputs;
      }
    }
    this.logger.info(
      { sessions, refreshed, ms: Date.now() - started },
      'recovered parked sessions',
    );
    return { sessions, refreshed };
  }
}
