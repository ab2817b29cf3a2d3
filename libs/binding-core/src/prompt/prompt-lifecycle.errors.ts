import type { PromptEventType } from './prompt-event';
import type { PromptStatus } from './prompt-state';

/**
 * A journal event that cannot follow the prompt's state. The decider never produces one, so
 * seeing it means the journal and the code disagree: it must stop the write, not be absorbed.
 */
export class IllegalPromptTransition extends Error {
  override readonly name = 'IllegalPromptTransition';

  constructor(
    readonly from: PromptStatus,
    readonly event: PromptEventType,
  ) {
    super(`${event} cannot follow a prompt that is ${from}`);
  }
}
