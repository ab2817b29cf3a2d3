import type {
  JournaledEvent,
  ProviderMessage,
  SessionEventType,
} from '@tollgate/session-read-model';

/**
 * The provider history (what the model is shown) is not part of the session state: it grows
 * with every turn, while a decision about a click needs none of it. It is read from the
 * journal when a model call needs it, and a parked batch's context is simply the journal up
 * to its ToolBatchStarted, so nothing stores the history a second time.
 */

/** The only events that add to the provider history; a loader may read just these. */
export const HISTORY_EVENT_TYPES: readonly SessionEventType[] = [
  'UserMessageReceived',
  'ToolBatchStarted',
  'ToolCallRecorded',
  'ToolBatchAbandoned',
  'TurnCompleted',
];

/**
 * How many of its latest turns the model is shown (MODEL_HISTORY_TURNS). Each turn is whole,
 * from its user message, so no tool result is ever shown without the call it answers. Why a
 * bound: reading and sending the whole journal made every model call of a long session cost
 * in proportion to its age (a click on a 10,000-event session paid 40–70 ms one time in eight,
 * S16), and a provider refuses a history past its context window anyway.
 */
export const DEFAULT_HISTORY_TURNS = 100;

/** The journal holds an event this version cannot turn back into provider messages. */
export class HistoryUnrestorable extends Error {
  override readonly name = 'HistoryUnrestorable';
}

/** Reads the history-bearing events of the journal, in seq order, up to `throughSeq`. */
export type HistorySource = (throughSeq: number) => Promise<readonly JournaledEvent[]>;

export const emptyHistory: HistorySource = async () => [];

export function historyOf(events: readonly JournaledEvent[]): ProviderMessage[] {
  const messages: ProviderMessage[] = [];
  for (const { seq, event } of events) {
    switch (event.type) {
      case 'UserMessageReceived':
        messages.push({ role: 'user', content: text(event.text, seq) });
        break;
      case 'ToolBatchStarted':
        if (!Array.isArray(event.toolCalls)) throw unrestorable(seq, 'toolCalls');
        messages.push({
          role: 'assistant',
          content: text(event.content, seq),
          toolCalls: event.toolCalls,
        });
        break;
      case 'ToolCallRecorded':
        messages.push({
          role: 'tool',
          callId: text(event.callId, seq),
          content: text(event.result, seq),
        });
        break;
      case 'ToolBatchAbandoned':
        if (!Array.isArray(event.results)) throw unrestorable(seq, 'results');
        for (const r of event.results as readonly { callId: unknown; result: unknown }[]) {
          messages.push({
            role: 'tool',
            callId: text(r.callId, seq),
            content: text(r.result, seq),
          });
        }
        break;
      case 'TurnCompleted':
        messages.push({ role: 'assistant', content: text(event.reply, seq) });
        break;
      default:
        break;
    }
  }
  return messages;
}

function text(value: unknown, seq: number): string {
  if (typeof value !== 'string') throw unrestorable(seq, 'a text field');
  return value;
}

function unrestorable(seq: number, what: string): HistoryUnrestorable {
  return new HistoryUnrestorable(`the event at seq ${seq} has no readable ${what}`);
}
