import {
  deriveSessionId,
  parseCommand,
  PROTOCOL_VERSION,
  type Conversation,
  type Person,
  type Principal,
  type RefusalReason,
  type ToolInteractionResponse,
  type UserMessage,
} from '@tollgate/protocol';
import { continueTrace, inSpan, SpanKind } from '@tollgate/telemetry';
import type { KnownSessions } from '../journal/known-sessions.port';
import type { PendingPrompt, PromptJournal } from '../journal/prompt-journal.port';
import type { PlatformAdapter } from '../platform-adapter.port';
import { memberOf } from './approver-groups';
import type { CommandPublisher } from './command-publisher.port';
import { type InboundArrival, publishDeadline } from './publish-deadline';
import {
  decideTextAnswer,
  readAnswerWord,
  type AnswerWord,
  type TextAnswerHintReason,
} from './text-answer.rules';

const INBOUND_SPAN = { kind: SpanKind.SERVER } as const;

/** A verified chat message the binding decided counts (docs/protocol.md §1.1). */
export interface IncomingMessage {
  readonly conversation: Conversation;
  readonly sender: Person;
  readonly text: string;
  /** From the platform's own ids, so a redelivered event is the same command. */
  readonly commandId: string;
  readonly principal?: Principal;
}

export type MessageForwarded =
  | { readonly kind: 'forwarded'; readonly command: UserMessage }
  /** The message was an answer typed as text (docs/protocol.md §1.3). */
  | { readonly kind: 'answered'; readonly command: ToolInteractionResponse }
  /**
   * An answer word that answers nothing: nothing was published. The sender was told why
   * (`sent`), or, when the caller asked to carry the hint in its own reply, is to be.
   */
  | {
      readonly kind: 'hinted';
      readonly reason: TextAnswerHintReason;
      readonly text: string;
      readonly sent: boolean;
    }
  | { readonly kind: 'refused'; readonly reason: RefusalReason; readonly detail: string };

/**
 * `receivedAt` is when the message's request reached the binding: the publish must be over in
 * time for the platform's answer, whatever remembering the session took (R1).
 */
export interface ForwardMessageOptions extends InboundArrival {
  /**
   * The caller shows a hint in its own answer to the platform instead of a separate notice:
   * Discord takes follow-up messages only after an interaction was answered, and its answer
   * waits for this use case.
   */
  readonly hintInReply?: boolean;
}

export interface ForwardMessageDeps {
  readonly sessions: KnownSessions;
  /** A typed answer is matched against the conversation's pending prompts. */
  readonly prompts: Pick<PromptJournal, 'pendingIn' | 'pendingApprovalsFor'>;
  /** A typed answer that answers nothing is explained to its sender alone. */
  readonly adapter: Pick<PlatformAdapter, 'sendNotice'>;
  readonly commands: CommandPublisher;
  readonly now: () => Date;
}

/**
 * Turns a chat message into a `UserMessage` and remembers its session; a message that is only
 * an answer word becomes a `ToolInteractionResponse` instead, or a private hint.
 */
export class ForwardMessage {
  constructor(private readonly deps: ForwardMessageDeps) {}

  async execute(
    message: IncomingMessage,
    options: ForwardMessageOptions,
  ): Promise<MessageForwarded> {
    const sessionId = deriveSessionId(message.conversation);
    // A webhook or a reminder is nobody approving anything: its text is always a message.
    const answer = message.principal === 'automation' ? undefined : readAnswerWord(message.text);
    if (answer !== undefined) {
      const typed = await this.typedAnswer(message, sessionId, answer, options);
      if (typed !== undefined) return typed;
    }
    const command: UserMessage = {
      type: 'UserMessage',
      v: PROTOCOL_VERSION,
      id: message.commandId,
      sessionId,
      conversation: message.conversation,
      occurredAt: this.deps.now().toISOString(),
      sender: message.sender,
      text: message.text,
      ...(message.principal === undefined ? {} : { principal: message.principal }),
    };
    // Every boundary validates: a text over the limit is refused here, not dead-lettered later.
    const checked = parseCommand(command);
    if (!checked.ok) return { kind: 'refused', reason: checked.reason, detail: checked.detail };
    // Remembered before publishing: once the user has addressed the bot in a thread, the
    // thread counts, even if this publish must be retried by the platform.
    await this.deps.sessions.remember(sessionId, message.conversation);
    // A user's message starts the turn's trace: everything the session does for it joins it.
    await inSpan('binding.message', INBOUND_SPAN, (span) => {
      span?.setAttribute('tollgate.session.id', sessionId);
      return this.deps.commands.publish(command, { deadline: publishDeadline(options) });
    });
    return { kind: 'forwarded', command };
  }

  /** Undefined when the answer word is an ordinary message after all (no prompt pending). */
  private async typedAnswer(
    message: IncomingMessage,
    sessionId: string,
    answer: AnswerWord,
    options: ForwardMessageOptions,
  ): Promise<MessageForwarded | undefined> {
    // A2: the approval API's prompts here that name the sender as an approver count too; each
    // is answered in its own (agent) session, echoed from the prompt. A sub-agent's prompts
    // are shown in this conversation too: sent on as a message, a typed answer would
    // supersede the very batch that waits for it (X16).
    const pending = [
      ...(await this.deps.prompts.pendingIn(sessionId, message.conversation)),
      ...(await this.deps.prompts.pendingApprovalsFor(message.conversation, message.sender.id)),
    ];
    const decision = decideTextAnswer(answer, message.sender, pending);
    switch (decision.kind) {
      case 'message':
        return undefined;
      case 'hint':
        if (options.hintInReply === true) {
          return { kind: 'hinted', reason: decision.reason, text: decision.text, sent: false };
        }
        await this.deps.adapter.sendNotice(
          message.conversation,
          message.sender,
          decision.text,
          pending.at(-1)?.messageRef,
        );
        return { kind: 'hinted', reason: decision.reason, text: decision.text, sent: true };
      case 'answer':
        return this.answer(message, decision.prompt, decision.optionKey, options);
    }
  }

  private async answer(
    message: IncomingMessage,
    prompt: PendingPrompt,
    optionKey: string,
    arrival: InboundArrival,
  ): Promise<MessageForwarded> {
    const groups = memberOf(prompt.request, prompt.approverMembers, message.sender.id);
    const command: ToolInteractionResponse = {
      type: 'ToolInteractionResponse',
      v: PROTOCOL_VERSION,
      // The message's own id, not one derived from it: a redelivery of this message is this
      // command however it is read then (an answer, or a message once the prompt is gone), so
      // the session's ledger and JetStream's duplicate window both drop it.
      id: message.commandId,
      sessionId: prompt.key.sessionId,
      conversation: message.conversation,
      occurredAt: this.deps.now().toISOString(),
      callId: prompt.key.callId,
      optionKey,
      sender: message.sender,
      promptRef: prompt.messageRef.messageId,
      via: 'text',
      ...(groups === undefined ? {} : { memberOf: groups }),
      // A sub-agent's prompt is answered with its agent, which ties it to its session (§1.4).
      ...(prompt.request.agent === undefined ? {} : { agent: prompt.request.agent }),
    };
    const checked = parseCommand(command);
    if (!checked.ok) return { kind: 'refused', reason: checked.reason, detail: checked.detail };
    // Typed or clicked, an answer continues the trace of the output that showed its prompt.
    await continueTrace(prompt.traceparent, () =>
      inSpan('binding.click', INBOUND_SPAN, (span) => {
        span?.setAttribute('tollgate.session.id', command.sessionId);
        span?.setAttribute('tollgate.call.id', command.callId);
        span?.setAttribute('tollgate.answer.via', 'text');
        return this.deps.commands.publish(command, { deadline: publishDeadline(arrival) });
      }),
    );
    return { kind: 'answered', command };
  }
}
