import {
  type ArgumentEdit,
  parseCommand,
  PROTOCOL_VERSION,
  type Person,
  type Platform,
  type RefusalReason,
  type ToolInteractionResponse,
} from '@tollgate/protocol';
import { continueTrace, inSpan, SpanKind } from '@tollgate/telemetry';
import type { PromptJournal } from '../journal/prompt-journal.port';
import type { MessageRef } from '../platform-adapter.port';
import { isPromptRef } from '../prompt/prompt-ref';
import { memberOf } from './approver-groups';
import type { CommandPublisher } from './command-publisher.port';
import { type InboundArrival, publishDeadline } from './publish-deadline';

const CLICK_SPAN = { kind: SpanKind.SERVER } as const;

/** A verified button click, as the platform's endpoint read it. */
export interface Click {
  /** The opaque reference the button carried. */
  readonly promptRef: string;
  readonly optionKey: string;
  readonly clicker: Person;
  /** From the platform's own ids (docs/protocol.md §1), so a retried click is the same command. */
  readonly commandId: string;
  /** The message the click came from, when the platform says. */
  readonly messageRef?: MessageRef;
  /** G2: an "Edit & approve" form's submission: the texts per argument, with approve_once. */
  readonly edits?: readonly ArgumentEdit[];
}

export type ClickForwarded =
  | { readonly kind: 'forwarded'; readonly command: ToolInteractionResponse }
  /** No prompt carries this reference: the binding shows the clicker a local notice. */
  | { readonly kind: 'unknown_prompt'; readonly promptRef: string }
  /** The click cannot make a valid command (e.g. an option key over 64 characters). */
  | { readonly kind: 'refused'; readonly reason: RefusalReason; readonly detail: string };

export interface ForwardClickDeps {
  /** The binding's own platform: a click never answers another platform's prompt. */
  readonly platform: Platform;
  readonly prompts: Pick<PromptJournal, 'findByRef'>;
  readonly commands: CommandPublisher;
  readonly now: () => Date;
}

/**
 * Turns a click into a `ToolInteractionResponse`. It never edits the prompt: only the
 * session's answer (`Resolved`, `Rejected`, `Update`) does, so the session stays the single
 * source of truth (docs/architecture.md §4.2).
 */
export class ForwardClick {
  constructor(private readonly deps: ForwardClickDeps) {}

  /**
   * `arrival` is when the click's request reached the binding: the publish must be over in
   * time for the platform's answer, whatever the lookups here took (R1).
   */
  async execute(click: Click, arrival: InboundArrival): Promise<ClickForwarded> {
    const address = isPromptRef(click.promptRef)
      ? await this.deps.prompts.findByRef(click.promptRef)
      : undefined;
    if (address === undefined) return { kind: 'unknown_prompt', promptRef: click.promptRef };
    // The journal holds only this platform's prompts (outputs of another are refused before
    // anything is journaled), so this holds unless the schema was shared or edited by hand;
    // a command naming another platform's session must never leave this binding.
    const { platform } = this.deps;
    if (
      address.conversation.platform !== platform ||
      !address.key.sessionId.startsWith(`${platform}-`)
    ) {
      return {
        kind: 'refused',
        reason: 'session_mismatch',
        detail: `the prompt belongs to another platform than ${platform}`,
      };
    }
    const groups = memberOf(undefined, address.approverMembers, click.clicker.id);
    const command: ToolInteractionResponse = {
      type: 'ToolInteractionResponse',
      v: PROTOCOL_VERSION,
      id: click.commandId,
      sessionId: address.key.sessionId,
      conversation: address.conversation,
      occurredAt: this.deps.now().toISOString(),
      callId: address.key.callId,
      optionKey: click.optionKey,
      sender: click.clicker,
      ...(click.messageRef === undefined ? {} : { promptRef: click.messageRef.messageId }),
      ...(address.agent === undefined ? {} : { agent: address.agent }),
      ...(click.edits === undefined ? {} : { edits: [...click.edits] }),
      // G1: which of the prompt's approver groups the clicker was in when it was posted.
      ...(groups === undefined ? {} : { memberOf: groups }),
    };
    // Every boundary validates: the option key and the clicker come from the platform.
    const checked = parseCommand(command);
    if (!checked.ok) return { kind: 'refused', reason: checked.reason, detail: checked.detail };
    // A click arrives as a new platform request; it continues the trace of the output that
    // showed its prompt, so one trace runs from the user's message to the tool's result.
    await continueTrace(address.traceparent, () =>
      inSpan('binding.click', CLICK_SPAN, (span) => {
        span?.setAttribute('tollgate.session.id', command.sessionId);
        span?.setAttribute('tollgate.call.id', command.callId);
        return this.deps.commands.publish(command, { deadline: publishDeadline(arrival) });
      }),
    );
    return { kind: 'forwarded', command };
  }
}
