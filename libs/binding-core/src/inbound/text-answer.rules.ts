import type { ApproverMembers } from '../journal/prompt-journal.port';
import { memberOf } from './approver-groups';
import type { OptionKey, Person, ToolInteractionRequest } from '@tollgate/protocol';

/**
 * Answers typed as text (docs/protocol.md §1.3): a chat message that is only an answer word
 * answers the one prompt its sender may answer in that conversation, instead of reaching the
 * agent as a new message (which would supersede that very prompt).
 */

/** Each answer word, lower-cased, single-spaced, and the option it stands for. */
export const ANSWER_WORDS: ReadonlyMap<string, OptionKey> = new Map<string, OptionKey>([
  ['approve', 'approve_once'],
  ['yes', 'approve_once'],
  ['y', 'approve_once'],
  ['ok', 'approve_once'],
  ['allow here', 'approve_session'],
  ['always', 'approve_always'],
  ['deny', 'deny'],
  ['no', 'deny'],
  ['n', 'deny'],
]);

/** The word a hint suggests for each option: the first one listed above. */
const WORD_FOR: Readonly<Record<OptionKey, string>> = {
  approve_once: 'approve',
  approve_session: 'allow here',
  approve_always: 'always',
  deny: 'deny',
};

/** Longer than any answer word with generous surrounding punctuation: not worth reading. */
const MAX_ANSWER_TEXT = 64;

/**
 * Punctuation, whitespace, Markdown's symbols (`` ` ``, `~`, `>`, `|`) and invisible format
 * characters around the word. Emoji and letters are not stripped: "yes 👍" is a sentence.
 */
const SURROUNDING = /^[\p{P}\p{Sk}\p{Sm}\p{Cf}\s]+|[\p{P}\p{Sk}\p{Sm}\p{Cf}\s]+$/gu;

/** A message read as an answer: the word as matched and the option it asks for. */
export interface AnswerWord {
  readonly word: string;
  readonly optionKey: OptionKey;
}

/**
 * The answer the text is, if it is only an answer word: case-insensitive, surrounding
 * punctuation ignored, inner whitespace collapsed. Undefined for any other text.
 */
export function readAnswerWord(text: string): AnswerWord | undefined {
  if (text.length > MAX_ANSWER_TEXT) return undefined;
  // NFKC first, so full-width "ｙｅｓ" and compatibility forms read as the letters they show.
  const word = text.normalize('NFKC').replace(SURROUNDING, '').replace(/\s+/gu, ' ').toLowerCase();
  const optionKey = ANSWER_WORDS.get(word);
  return optionKey === undefined ? undefined : { word, optionKey };
}

/** What the rules need of a pending prompt. */
export interface AnswerablePrompt {
  readonly request: Pick<
    ToolInteractionRequest,
    'requester' | 'principal' | 'options' | 'approvers' | 'quorum' | 'approverGroups'
  >;
  /** G1: the members of its approver groups, as resolved when it was posted. */
  readonly approverMembers?: ApproverMembers;
}

/** Why a message that is an answer word answers nothing, and is not sent on either. */
export type TextAnswerHintReason =
  /** The sender may answer several prompts here: which one is meant cannot be told. */
  | 'several_prompts'
  /** The one prompt does not offer the option the word stands for. */
  | 'option_not_offered'
  /** Prompts are pending here, but none the sender may answer. */
  | 'not_requester';

export type TextAnswerDecision<P extends AnswerablePrompt> =
  /** Not an answer: the text goes to the agent as a `UserMessage`. */
  | { readonly kind: 'message' }
  /** A `ToolInteractionResponse` for `prompt` with `optionKey`. */
  | { readonly kind: 'answer'; readonly prompt: P; readonly optionKey: OptionKey }
  /** Nothing is sent; the sender alone is shown `text`. */
  | { readonly kind: 'hint'; readonly reason: TextAnswerHintReason; readonly text: string };

const NOT_SENT = 'Your message was not sent to the agent.';

/**
 * Decides what a message that is `answer` does, given the conversation's pending prompts.
 * A prompt is the sender's to answer when they requested it, when it names them among its
 * approvers (an approval API prompt), or when it is an automation prompt, which any member may
 * answer (docs/protocol.md §4 `principal`). Whenever the sender
 * evidently meant to answer but no single offered option can be picked, the answer is held
 * back with a hint: sent on as a new message it would supersede the prompts it meant to answer.
 */
export function decideTextAnswer<P extends AnswerablePrompt>(
  answer: AnswerWord,
  sender: Person,
  pending: readonly P[],
): TextAnswerDecision<P> {
  if (pending.length === 0) return { kind: 'message' };
  const answerable = pending.filter(
    (p) =>
      p.request.principal === 'automation' ||
      p.request.requester.id === sender.id ||
      // G1: a quorum without named approvers is any member's to answer (the session counts).
      (p.request.quorum !== undefined &&
        p.request.approvers === undefined &&
        p.request.approverGroups === undefined) ||
      (p.request.approvers ?? []).some((approver) => approver.id === sender.id) ||
      memberOf(p.request, p.approverMembers, sender.id) !== undefined,
  );
  const [prompt] = answerable;
  if (prompt === undefined) {
    return {
      kind: 'hint',
      reason: 'not_requester',
      text: `The request waiting here is for the person who asked to answer. ${NOT_SENT}`,
    };
  }
  if (answerable.length > 1) {
    return {
      kind: 'hint',
      reason: 'several_prompts',
      text:
        `${answerable.length} requests are waiting for your answer here, so a typed answer ` +
        `cannot tell which one you mean: use the buttons on each. ${NOT_SENT}`,
    };
  }
  const offered = prompt.request.options.map((o) => o.key);
  if (!offered.includes(answer.optionKey)) {
    return {
      kind: 'hint',
      reason: 'option_not_offered',
      text:
        `This request does not offer "${answer.word}". Answer with ` +
        `${offered.map((key) => `"${WORD_FOR[key]}"`).join(', ')} or its buttons. ${NOT_SENT}`,
    };
  }
  return { kind: 'answer', prompt, optionKey: answer.optionKey };
}
