import { PROTOCOL_VERSION, shownCommandId, type ToolInteractionRequest } from '@tollgate/protocol';
import type { Logger } from 'pino';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { MessageRef } from '../platform-adapter.port';

export interface PromptShown {
  readonly request: ToolInteractionRequest;
  readonly messageRef: MessageRef;
  /** `reposted`: a new message in place of one that could no longer be edited. */
  readonly shown: 'posted' | 'reposted';
}

/**
 * G4: tells the session where a prompt now is, in the platform's own ids, for its audit trail
 * (`ToolInteractionShown`, docs/protocol.md §4). Called once the prompt journal has the
 * message, and best effort: the prompt was shown whatever happens here, and failing the
 * output would only have it dropped as already shown on the retry, so a report that cannot
 * be published is logged, not retried. Its id is the message's, so a second report of the
 * same message (another replica adopting the post) is deduplicated.
 */
export async function reportPromptShown(
  deps: { readonly commands: CommandPublisher; readonly now: () => Date },
  { request, messageRef, shown }: PromptShown,
  log: Logger,
): Promise<void> {
  const ref = { channelId: messageRef.channelId, messageId: messageRef.messageId };
  try {
    await deps.commands.publish({
      type: 'ToolInteractionShown',
      v: PROTOCOL_VERSION,
      id: shownCommandId(request.conversation.platform, ref),
      sessionId: request.sessionId,
      conversation: request.conversation,
      occurredAt: deps.now().toISOString(),
      callId: request.callId,
      messageRef: ref,
      shown,
      ...(request.agent === undefined ? {} : { agent: request.agent }),
    });
  } catch (error) {
    log.error({ err: error, messageRef: ref }, 'prompt shown not reported to the session');
  }
}
