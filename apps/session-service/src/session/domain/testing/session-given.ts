import {
  type Output,
  outputId,
  parseOutput,
  type ToolInteractionResponse,
  type UserMessage,
} from '@tollgate/protocol';
import {
  aJoinSession,
  aResponse,
  aUserMessage,
  sessionId,
} from '../../../../../../libs/protocol/src/testing/message-fixtures';
import { ScriptedModelClient } from '../../../model/scripted-model.client';
import { defaultToolPolicy } from '../../../tools/tool-policy';
import { builtInTools } from '../../../tools/tool-registry';
import { historyOf, HISTORY_EVENT_TYPES } from '../provider-history';
import type { SessionDeps } from '../session-deps';
import {
  type JournaledEvent,
  type ProviderMessage,
  replay,
  type SessionEvent,
  type SessionState,
} from '@tollgate/session-read-model';
import { type RecordedEvent, SessionRecorder } from '../session-recorder';
import { decideJoin, decideRecovery, decideResponse, decideUserMessage } from '../session.decider';
import { driveTurn } from '../../drive-turn';
import { type GrantClaim, noToolGrants } from '../tool-grants.port';

export { sessionId };

/** The ports the infrastructure wires by default: scripted model, built-in tools and policy. */
export function defaultDeps(): SessionDeps {
  return {
    model: new ScriptedModelClient(),
    tools: builtInTools(),
    policy: defaultToolPolicy(),
    grants: noToolGrants,
  };
}

/** What one decision recorded: the events to journal with their outputs, and the rest. */
export interface Decision {
  readonly events: readonly RecordedEvent[];
  /** The journaled outputs, in the order the outbox will hold them. */
  readonly outputs: readonly Output[];
  readonly unjournaled: readonly Output[];
  /** The state right after the decision, as the recorder evolved it. */
  readonly state: SessionState;
}

type OutputOf<T extends Output['type']> = Extract<Output, { type: T }>;
type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

const START = Date.parse('2024-05-01T12:00:00.000Z');

/**
 * A session driven the way the infrastructure drives it: every decision starts from
 * `replay(sessionId, journal)`, and what it recorded becomes the next decision's "given",
 * after a JSON round trip as the journal stores it. Every output is checked against the
 * wire contract before anyone looks at it.
 */
export class SessionGiven {
  readonly journal: JournaledEvent[] = [];
  /** Every output so far, journaled or not, in the order the decisions produced them. */
  readonly published: Output[] = [];
  private decisions = 0;

  constructor(
    readonly deps: SessionDeps = defaultDeps(),
    /** G3: takes a limited grant's use, as the store does in the decision's transaction. */
    private readonly onClaim?: (claim: GrantClaim) => Promise<number | undefined>,
  ) {}

  get state(): SessionState {
    return replay(sessionId, this.journal);
  }

  /** What the model would be shown next: the journal's provider history. */
  get history(): ProviderMessage[] {
    return historyOf(this.journal);
  }

  /** The notes write_note stored, as the journal holds them. */
  get notes(): string[] {
    return this.journal.flatMap(({ event }) =>
      event.type === 'ToolCallRecorded' && event.note !== undefined ? [event.note] : [],
    );
  }

  message(text: string, overrides: Partial<UserMessage> = {}): Promise<Decision> {
    const command = aUserMessage({ id: `msg-${this.decisions + 1}`, text, ...overrides });
    return this.decide((recorder) => {
      decideUserMessage(recorder, command);
      return driveTurn(recorder, this.deps);
    });
  }

  respond(
    callId: string,
    optionKey: string,
    overrides: Partial<ToolInteractionResponse> = {},
  ): Promise<Decision> {
    const command = aResponse({
      id: `click-${this.decisions + 1}`,
      callId,
      optionKey,
      sender: REQUESTER,
      ...overrides,
    });
    return this.decide((recorder) => {
      decideResponse(recorder, command);
      return driveTurn(recorder, this.deps);
    });
  }

  join(): Promise<Decision> {
    return this.decide((recorder) => {
      decideJoin(recorder, aJoinSession({ id: `join-${this.decisions + 1}` }));
    });
  }

  recover(): Promise<Decision> {
    return this.decide(async (recorder) => {
      decideRecovery(recorder);
      await driveTurn(recorder, this.deps);
    });
  }

  /** Any decision, as the store would run it (S22 drives timers through it). */
  async decide(decision: (recorder: SessionRecorder) => Promise<void> | void): Promise<Decision> {
    this.decisions += 1;
    const now = new Date(START + this.decisions * 60_000).toISOString();
    // The history is read as the store reads it: only its events, only up to the state.
    const journal = [...this.journal];
    const recorder = new SessionRecorder(
      replay(sessionId, journal),
      now,
      undefined,
      async (through) =>
        journal.filter((e) => e.seq <= through && HISTORY_EVENT_TYPES.includes(e.event.type)),
      this.onClaim,
    );
    await decision(recorder);
    const outputs = recorder.recorded.flatMap((r) => r.outputs);
    for (const output of [...outputs, ...recorder.unjournaledOutputs]) expectOnTheWire(output);
    for (const { seq, occurredAt, event } of recorder.recorded) {
      this.journal.push(JSON.parse(JSON.stringify({ seq, occurredAt, event })) as JournaledEvent);
    }
    this.published.push(...outputs, ...recorder.unjournaledOutputs);
    return {
      events: recorder.recorded,
      outputs,
      unjournaled: recorder.unjournaledOutputs,
      state: recorder.current,
    };
  }
}

/** The sender of every message unless a spec says otherwise; it requests the approvals. */
export const REQUESTER = { id: 'U0001', displayName: 'Ada' } as const;
export const SOMEONE_ELSE = { id: 'U0002', displayName: 'Bob' } as const;

function expectOnTheWire(output: Output): void {
  const parsed = parseOutput(JSON.stringify(output));
  if (!parsed.ok) {
    throw new Error(`output ${output.id} breaks the contract: ${parsed.reason}: ${parsed.detail}`);
  }
  expect(parsed.value).toEqual(output);
}

// ── reading a decision ───────────────────────────────────────────────────────────────────

export function eventTypes(decision: Decision): SessionEvent['type'][] {
  return decision.events.map((r) => r.event.type);
}

export function eventsOf<T extends SessionEvent['type']>(
  decision: Decision,
  type: T,
): EventOf<T>[] {
  return decision.events
    .map((r) => r.event)
    .filter((event): event is EventOf<T> => event.type === type);
}

export function outputsOf<T extends Output['type']>(
  outputs: readonly Output[],
  type: T,
): OutputOf<T>[] {
  return outputs.filter((output): output is OutputOf<T> => output.type === type);
}

/** `[type, status or reason]` of each output, the shape a binding switches on. */
export function outputKinds(outputs: readonly Output[]): string[] {
  return outputs.map((output) => {
    switch (output.type) {
      case 'ToolInteractionUpdate':
        return `${output.type}{${output.status}}`;
      case 'ToolInteractionRejected':
        return `${output.type}{${output.reason}}`;
      case 'ToolInteractionResolved':
        return `${output.type}{${output.optionKey}}`;
      case 'TextOutput':
        return `${output.type}{${output.role}}`;
      case 'ToolInteractionRequest':
        return `${output.type}{${output.callId}}`;
    }
  });
}

/** The assistant's reply of a decision: the text of its one assistant TextOutput. */
export function replyOf(decision: Decision): string {
  const replies = outputsOf(decision.outputs, 'TextOutput').filter((o) => o.role === 'assistant');
  if (replies.length !== 1) {
    throw new Error(`expected one assistant reply, got ${replies.length}`);
  }
  return replies[0].text;
}

/** Call ids that ever got a ToolExecutionStarted in the journal, once per start. */
export function executedCalls(journal: readonly JournaledEvent[]): string[] {
  return journal.flatMap(({ event }) =>
    event.type === 'ToolExecutionStarted' ? [event.callId] : [],
  );
}

/** The id an output caused by the journaled event at `seq` must carry as its `n`-th. */
export function idAt(seq: number, n: number): string {
  return outputId(sessionId, seq, n);
}
