import type { EntityManager } from 'typeorm';
import { projectAlwaysGrants } from '../grants/always-grants.projection';
import { projectSessionGrants } from '../grants/session-grants.projection';
import type { OutboxWriter } from '../outbox/outbox-writer';
import type { SessionRecorder } from '../session/domain/session-recorder';
import type { SessionState } from '@tollgate/session-read-model';
import { appendEvents } from './event-journal';
import { schedulePromptTimers } from './prompt-timer.repository';
import { dispatchCommands, type InboxEntry } from './session-inbox';
import { projectChanges } from './session-projections';
import { saveStates } from './session-snapshot';

/** An "Allow in this chat" lasts a day unless TOLLGATE_SESSION_GRANT_TTL says otherwise. */
export const DEFAULT_SESSION_GRANT_TTL_MS = 24 * 3_600_000;

/**
 * One commit of one session: the events, their outputs (outbox), the projections, the state
 * row and the commands for related sessions, in the caller's transaction.
 */
export class SessionWriter {
  constructor(
    private readonly outbox: OutboxWriter,
    /** X14: how long an "Allow in this chat" lasts (TOLLGATE_SESSION_GRANT_TTL). */
    private readonly sessionGrantTtlMs: number = DEFAULT_SESSION_GRANT_TTL_MS,
  ) {}

  /** Appends what the recorder holds beyond `from`, with outputs and projections. */
  async persist(
    manager: EntityManager,
    recorder: SessionRecorder,
    from: { events: number; unjournaled: number; dispatched?: number },
    previous: SessionState,
  ): Promise<{ outputs: number; dispatched: InboxEntry[] }> {
    const sessionId = recorder.current.sessionId;
    const events = recorder.recorded.slice(from.events);
    const outputs = [
      ...events.flatMap((r) => r.outputs),
      ...recorder.unjournaledOutputs.slice(from.unjournaled),
    ];
    const decisions = events.flatMap((r) => r.decisions ?? []);
    if (events.length > 0) {
      await appendEvents(
        manager,
        events.map((e) => ({ ...e, sessionId })),
      );
      await projectChanges(manager, previous, recorder.current);
      await saveStates(manager, [
        { state: recorder.current, settledBefore: previous.settledCalls },
      ]);
      await projectAlwaysGrants(manager, recorder.current, events);
      await projectSessionGrants(manager, recorder.current, events, this.sessionGrantTtlMs);
      await schedulePromptTimers(manager, sessionId, events);
    }
    if (outputs.length > 0 || decisions.length > 0) {
      await this.outbox.enqueue(manager, outputs, decisions);
    }
    const dispatched = await dispatchCommands(
      manager,
      recorder.dispatched.slice(from.dispatched ?? 0),
    );
    return { outputs: outputs.length, dispatched };
  }
}
