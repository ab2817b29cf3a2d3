import type { Logger } from 'pino';
import type { DecideOptions, SessionStore } from '../journal/session-store';
import { isParked } from '@tollgate/session-read-model';
import type { SessionDeps } from '../session/domain/session-deps';
import { decideRecovery } from '../session/domain/session.decider';
import { driveTurn } from '../session/drive-turn';

/** Sessions per recovery transaction: large enough to amortize, small enough to not hold locks long. */
const RECOVERY_CHUNK = 500;

/**
 * On every start (and on taking over from another instance), each session the projection
 * says is parked journals SessionRecovered and refreshes its prompts, so approvers see the
 * prompt is still valid. Parked sessions are refreshed in bulk; a session among them whose
 * journal cannot be replayed, or whose recovery throws, is handed to `quarantine` and the
 * others go on (S18). Turns left in flight are returned, not settled here: they may wait on a
 * model for a long time, so the scheduler resumes them while commands flow.
 */
export class RecoverSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly logger: Logger,
    private readonly deps: SessionDeps,
    private readonly quarantine: (sessionId: string, error: unknown) => Promise<void>,
  ) {}

  async execute(): Promise<{ sessions: number; refreshed: number; inFlight: string[] }> {
    const started = Date.now();
    const { parked, inFlight } = await this.store.sessionsToRecover();
    let sessions = 0;
    let refreshed = 0;
    for (let i = 0; i < parked.length; i += RECOVERY_CHUNK) {
      const chunk = parked.slice(i, i + RECOVERY_CHUNK);
      const result = await this.store.decideMany(chunk, async (recorder) => {
        // A turn in flight is the scheduler's (it may call the model); only parked ones here.
        const state = recorder.current;
        // An agent session (A2) waits on its API approvals, never on a turn.
        if (isParked(state.turn) || state.apiClientId !== undefined) {
          decideRecovery(recorder);
        }
      });
      sessions += result.sessions;
      refreshed += result.outputs;
      for (const { sessionId, error } of result.failed) await this.quarantine(sessionId, error);
    }
    this.logger.info(
      { sessions, refreshed, inFlight: inFlight.length, ms: Date.now() - started },
      'recovered parked sessions',
    );
    return { sessions, refreshed, inFlight };
  }

  /** Settles one turn left in flight: redrive, ask the model again, or abandon a started tool. */
  async resumeOne(sessionId: string, options: DecideOptions = {}) {
    return this.store.decide(
      sessionId,
      undefined,
      async (recorder) => {
        decideRecovery(recorder);
        await driveTurn(recorder, this.deps);
      },
      options,
    );
  }
}
