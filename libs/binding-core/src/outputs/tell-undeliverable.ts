import { TransientFailure } from '@tollgate/messaging';
import { PROTOCOL_VERSION, undeliverableCommandId } from '@tollgate/protocol';
import type { Logger } from 'pino';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { PromptClaim, PromptJournal } from '../journal/prompt-journal.port';
import type { OutputHandled } from './output-handled';

/**
 * The platform refused the prompt's post for good (channel gone, bot removed): nothing is
 * out there, so the intent ends with no event, and the session is told, so that it expires
 * the call instead of waiting for an answer that cannot come (docs/protocol.md §4). A publish
 * that fails is retried with the whole output; the command's id makes the repeat harmless.
 */
export async function tellUndeliverable(
  deps: {
    readonly prompts: PromptJournal;
    readonly commands: CommandPublisher;
    readonly now: () => Date;
  },
  claim: Extract<PromptClaim, { kind: 'claimed' }>,
  reason: string,
  why: string,
  log: Logger,
): Promise<OutputHandled> {
  const { prompts, commands, now } = deps;
  const { request } = claim.decision.view;
  if (!(await prompts.complete(claim.lease, []))) return { outcome: 'lease_lost' };
  try {
    await commands.publish({
      type: 'ToolInteractionUndeliverable',
      v: PROTOCOL_VERSION,
      id: undeliverableCommandId(request.id),
      sessionId: request.sessionId,
      conversation: request.conversation,
      occurredAt: now().toISOString(),
      callId: request.callId,
      reason,
      ...(request.agent === undefined ? {} : { agent: request.agent }),
    });
  } catch (error) {
    throw new TransientFailure('undeliverable_unpublished', { cause: error });
  }
  log.warn(
    { reason: why, platformCode: reason },
    'the platform refused the prompt for good; the session was told it is undeliverable',
  );
  return { outcome: 'undeliverable', reason };
}
