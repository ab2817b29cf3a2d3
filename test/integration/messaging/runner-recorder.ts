import type { ConsumerOutcome, MessageHandler } from '@tollgate/messaging';
import { waitFor } from '../../support/wait-for';
import { holdsFor, type MessagingScope, type Scenario } from './messaging-scope';

export interface Delivery {
  at: number;
  subject: string;
  streamSeq: number;
  deliveryCount: number;
}

/** Records every delivery and outcome, then lets `behave` decide what the handler does. */
export function recorder(behave: MessageHandler) {
  const deliveries: Delivery[] = [];
  const outcomes: { outcome: ConsumerOutcome; subject: string }[] = [];
  const handler: MessageHandler = (message) => {
    deliveries.push({
      at: Date.now(),
      subject: message.subject,
      streamSeq: message.streamSeq,
      deliveryCount: message.deliveryCount,
    });
    return behave(message);
  };
  const onOutcome = (outcome: ConsumerOutcome, subject: string): void => {
    outcomes.push({ outcome, subject });
  };
  return { deliveries, outcomes, handler, onOutcome };
}

/** Nothing left to deliver or awaiting an ack, and that stays so past ack_wait. */
export async function expectSettledForGood(
  scope: MessagingScope,
  scenario: Scenario,
  handled: () => number,
): Promise<void> {
  const count = handled();
  await waitFor('the consumer to settle', async () => {
    const info = await scope.consumerInfo(scenario);
    return info.num_ack_pending === 0 && info.num_pending === 0;
  });
  await holdsFor(
    'no redelivery',
    async () => {
      const info = await scope.consumerInfo(scenario);
      return info.num_ack_pending === 0 && info.num_pending === 0 && handled() === count;
    },
    { forMs: scenario.consumer.ackWaitMs + 500 },
  );
}
