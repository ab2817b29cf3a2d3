import type { Logger } from 'pino';
import type { SessionStore } from '../journal/session-store';
import type { SessionDeps } from '../session/domain/session-deps';
import { decideRecovery } from '../session/domain/session.decider';

/**
 * On every start (and on taking over from another instance), each session the projection
 * says is parked journals SessionRecovered and refreshes its prompts, so approvers see the
 * prompt is still valid. Sessions are loaded one at a time and not kept in memory.
 */
/** Sessions per recovery transaction: large enough to amortize, small enough to not hold locks long. */
const RECOVERY_CHUNK = 500;

export class RecoverSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly logger: Logger,
    private readonly deps: SessionDeps,
  ) {}

  async execute(): Promise<{ sessions: number; refreshed: number }> {
    const started = Date.now();
    const { parked, inFlight } = await this.store.sessionsToRecover();
    let sessions = 0;
    let refreshed = 0;
    // Parked sessions only journal and refresh, so they are recovered in bulk.
    for (let i = 0; i < parked.length; i += RECOVERY_CHUNK) {
      const chunk = parked.slice(i, i + RECOVERY_CHUNK);
      const result = await this.store.decideMany(chunk, async (recorder) => {
        await decideRecovery(recorder, this.deps);
      });
      sessions += result.sessions;
      refreshed += result.outputs;
    }
    // A turn that died mid-flight may run a tool, so each gets its own checkpointed decision.
    for (const sessionId of inFlight) {
      const result = await this.store.decide(sessionId, undefined, async (recorder) => {
        await decideRecovery(recorder, this.deps);
      });
      if (result.kind === 'decided' && result.events > 0) sessions += 1;
    }
    this.logger.info(
      { sessions, refreshed, inFlight: inFlight.length, ms: Date.now() - started },
      'recovered sessions',
    );
    return { sessions, refreshed };
  }
}
