import {
  type ApprovalDecided,
  type Conversation,
  type Output,
  outputId,
  PROTOCOL_VERSION,
  unjournaledOutputId,
} from '@tollgate/protocol';
import { emptyHistory, type HistorySource, historyOf } from './provider-history';
import {
  evolve,
  type JournaledEvent,
  type ProviderMessage,
  type SessionEvent,
  type SessionState,
} from '@tollgate/session-read-model';
import { type SubAgentCommand, subAgentResultId } from './sub-agent';
import type { GrantClaim, GrantConnection } from './tool-grants.port';

type EnvelopeKey = 'v' | 'id' | 'sessionId' | 'conversation' | 'occurredAt' | 'seq';
/** An output before the recorder gives it its envelope (id, seq, conversation, time). */
export type OutputDraft = Output extends infer O
  ? O extends Output
    ? Omit<O, EnvelopeKey>
    : never
  : never;

export interface RecordedEvent extends JournaledEvent {
  readonly outputs: readonly Output[];
  /** A2: decision events for approval-api, published through the outbox with the outputs. */
  readonly decisions?: readonly ApprovalDecided[];
}

export interface RecordOptions {
  /**
   * The conversation the outputs go to, when not the session's: an agent session's approvals
   * each carry their own route, and a refusal answers the conversation the click came from.
   */
  readonly conversation?: Conversation | readonly Conversation[];
  readonly decisions?: readonly ApprovalDecided[];
}

/**
 * Where a decision commits part-way (before a turn's effect); named so a crash can be placed
 * exactly in tests.
 */
export type CheckpointName = 'approval-resolved' | 'tool-starting' | 'model-calling';

export const CHECKPOINT_NAMES: readonly CheckpointName[] = [
  'approval-resolved',
  'tool-starting',
  'model-calling',
];

/**
 * Runs a read on the connection the decision holds (its open transaction, or one gated slot);
 * `undefined` where no database backs the decision (a unit spec), and the port reads its own.
 */
export type ReadThrough = <T>(read: (connection?: GrantConnection) => Promise<T>) => Promise<T>;

const readAlone: ReadThrough = (read) => read(undefined);

/** A session has no conversation before SessionStarted; a decision for it must supply one. */
export class MissingConversation extends Error {
  constructor(sessionId: string) {
    super(`session ${sessionId} has no conversation yet`);
    this.name = 'MissingConversation';
  }
}

/**
 * Accumulates one decision: each event gets the next seq and its outputs their ids
 * (`<sessionId>:<seq>:<n>`), and the state evolves as it goes so later steps see earlier
 * ones. Nothing is written here; the caller appends `recorded` in one transaction.
 */
export class SessionRecorder {
  private state: SessionState;
  private readonly loadedVersion: number;
  readonly recorded: RecordedEvent[] = [];
  readonly unjournaledOutputs: Output[] = [];
  /** Commands for related sessions (sub-agents), written to their inbox with the events. */
  readonly dispatched: SubAgentCommand[] = [];

  constructor(
    initial: SessionState,
    private now: string,
    private readonly onCheckpoint: (
      recorder: SessionRecorder,
      point: CheckpointName,
    ) => Promise<void> = async () => {},
    /** The journal the state was loaded from, for what the model must be shown. */
    private readonly journal: HistorySource = emptyHistory,
    /** G3: takes one use of a limited grant in the transaction the next checkpoint commits. */
    private readonly onClaim: (claim: GrantClaim) => Promise<number | undefined> = async () => {
      throw new Error('this decision cannot take a grant use');
    },
    /** Grant reads go through the decision's own connection, never a second one (D2). */
    readonly readThrough: ReadThrough = readAlone,
  ) {
    this.state = initial;
    this.loadedVersion = initial.version;
  }

  /**
   * The shell's commit between a turn's effects (`session/drive-turn.ts`): makes everything
   * recorded so far durable and holds nothing (no transaction, connection or lock) until the
   * next one. Domain code never calls it; an effect names the point it needs committed first.
   */
  async commit(point: CheckpointName): Promise<void> {
    await this.onCheckpoint(this, point);
  }

  /**
   * G3: takes one use of a limited grant; the uses left after it, or undefined when none was
   * left (another replica took the last, or it lapsed or was revoked since it was read). The
   * use commits with what is recorded next, and is given back if that never commits.
   */
  async claimGrantUse(claim: GrantClaim): Promise<number | undefined> {
    return this.onClaim(claim);
  }

  /** After a checkpoint's I/O, what is recorded next carries the time it is decided. */
  clockAt(now: string): void {
    this.now = now;
  }

  get current(): SessionState {
    return this.state;
  }

  /** The instant what is recorded now carries. */
  get clock(): string {
    return this.now;
  }

  get nextSeq(): number {
    return this.state.version + 1;
  }

  /**
   * The provider history through `throughSeq` (all of it by default): the journal the state
   * came from plus what this decision recorded. Throws HistoryUnrestorable.
   */
  async history(throughSeq = Number.POSITIVE_INFINITY): Promise<ProviderMessage[]> {
    // A session this decision started has nothing journaled before it to read.
    const journaled =
      this.loadedVersion === 0 ? [] : await this.journal(Math.min(this.loadedVersion, throughSeq));
    return historyOf([...journaled, ...this.recorded.filter((r) => r.seq <= throughSeq)]);
  }

  /** Builds the output the event at `seq` will carry as its n-th output. */
  output(seq: number, n: number, draft: OutputDraft, to?: Conversation): Output {
    const conversation = to ?? this.state.conversation;
    if (!conversation) throw new MissingConversation(this.state.sessionId);
    return {
      ...draft,
      v: PROTOCOL_VERSION,
      id: outputId(this.state.sessionId, seq, n),
      sessionId: this.state.sessionId,
      conversation,
      ...this.agent(),
      occurredAt: this.now,
      seq,
    };
  }

  /** A sub-agent's outputs say so: bindings show it, and check its session by it. */
  private agent(): Pick<Output, 'agent'> {
    const parent = this.state.parent;
    return parent ? { agent: { name: parent.name, parentCallId: parent.callId } } : {};
  }

  /** Sends a command to a related session, in the transaction that commits what is recorded. */
  dispatch(command: SubAgentCommand): void {
    this.dispatched.push(command);
  }

  record(
    event: SessionEvent,
    drafts: readonly OutputDraft[] = [],
    options: RecordOptions = {},
  ): RecordedEvent {
    const seq = this.nextSeq;
    const before = this.state;
    // Evolve first: SessionStarted brings the conversation the outputs' envelope needs.
    this.state = evolve(this.state, { seq, occurredAt: this.now, event });
    this.reportToParent(before, event);
    const recorded: RecordedEvent = {
      seq,
      occurredAt: this.now,
      event,
      outputs: drafts.map((draft, n) => this.output(seq, n, draft, conversationOf(options, n))),
      ...(options.decisions === undefined ? {} : { decisions: options.decisions }),
    };
    this.recorded.push(recorded);
    return recorded;
  }

  /**
   * A sub-agent whose turn ends, however it ends, tells the call that started it: its reply
   * becomes the `delegate` result, or the parent's model learns why it could not finish. Only
   * an abandonment the parent itself caused needs no answer.
   */
  private reportToParent(before: SessionState, event: SessionEvent): void {
    const parent = this.state.parent;
    if (!parent || before.turn.phase === 'NoActive' || this.state.turn.phase !== 'NoActive') return;
    if (event.type === 'ToolBatchAbandoned' && event.reason === 'superseded') return;
    const outcome = event.type === 'TurnCompleted' ? ('ok' as const) : ('failed' as const);
    const result =
      event.type === 'TurnCompleted'
        ? event.reply
        : event.type === 'TurnFailed'
          ? event.reason
          : event.type === 'ToolBatchAbandoned'
            ? (event.results[0]?.result ?? `its batch was ${event.reason}`)
            : event.type;
    this.dispatch({
      type: 'SubAgentResult',
      id: subAgentResultId(this.state.sessionId, before.turn.turnSeq),
      sessionId: parent.sessionId,
      callId: parent.callId,
      childSessionId: this.state.sessionId,
      outcome,
      result,
    });
  }

  /** An output caused by no journaled event: seq 0, id `<sessionId>:0:<command id>`. */
  recordUnjournaled(
    commandId: string,
    conversation: NonNullable<SessionState['conversation']>,
    draft: OutputDraft,
  ): void {
    this.unjournaledOutputs.push({
      ...draft,
      v: PROTOCOL_VERSION,
      id: unjournaledOutputId(this.state.sessionId, commandId),
      sessionId: this.state.sessionId,
      conversation,
      ...this.agent(),
      occurredAt: this.now,
      seq: 0,
    });
  }
}

function conversationOf(options: RecordOptions, n: number): Conversation | undefined {
  const { conversation } = options;
  return isConversationList(conversation) ? conversation[n] : conversation;
}

function isConversationList(
  value: RecordOptions['conversation'],
): value is readonly Conversation[] {
  return Array.isArray(value);
}
