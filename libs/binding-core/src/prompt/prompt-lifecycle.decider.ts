import type {
  CallOutput,
  ToolInteractionRejected,
  ToolInteractionResolved,
  ToolInteractionUpdate,
} from '@tollgate/protocol';
import type { MessageRef } from '../platform-adapter.port';
import type {
  EffectDecision,
  PostDecision,
  PromptDecision,
  PromptDropReason,
} from './prompt-decision';
import type { PromptCleared, PromptEvent, PromptTracked } from './prompt-event';
import { IllegalPromptTransition } from './prompt-lifecycle.errors';
import type { PromptState } from './prompt-state';

/** The outputs ordered by `seq`; `Rejected` is exempt (docs/protocol.md §3). */
export type OrderedCallOutput = Exclude<CallOutput, ToolInteractionRejected>;

type PendingState = Extract<PromptState, { status: 'pending' }>;

/**
 * The decision table of docs/architecture.md §4.1, pure. `Rejected` is answered in every state and
 * changes none; everything else obeys the seq rule first (not newer than the last applied →
 * drop), then the table.
 */
export function decidePrompt(state: PromptState, output: CallOutput): PromptDecision {
  if (output.type === 'ToolInteractionRejected') return noticeFor(state, output);
  switch (state.status) {
    case 'untracked':
      return decideUntracked(output);
    case 'pending':
      return output.seq <= state.lastSeq ? drop('stale_seq') : decidePending(state, output);
    case 'cleared':
      return drop(output.seq <= state.lastSeq ? 'stale_seq' : 'prompt_cleared');
  }
}

/** The state after one journal event; an event the state cannot take throws. */
export function evolvePrompt(state: PromptState, event: PromptEvent): PromptState {
  switch (event.type) {
    case 'PendingApprovalPromptTracked':
      if (state.status !== 'untracked') throw new IllegalPromptTransition(state.status, event.type);
      return {
        status: 'pending',
        lastSeq: event.seq,
        request: event.request,
        messageRef: event.messageRef,
      };
    case 'PendingApprovalPromptRefreshed':
      if (state.status !== 'pending') throw new IllegalPromptTransition(state.status, event.type);
      return {
        ...state,
        lastSeq: event.seq,
        ...(event.request === undefined ? {} : { request: event.request }),
      };
    case 'PendingApprovalPromptReposted':
      if (state.status !== 'pending') throw new IllegalPromptTransition(state.status, event.type);
      return { ...state, messageRef: event.messageRef };
    case 'PendingApprovalPromptCleared':
      switch (state.status) {
        case 'untracked':
          return { status: 'cleared', lastSeq: event.seq, outcome: event.outcome };
        case 'pending':
          return {
            status: 'cleared',
            lastSeq: event.seq,
            outcome: event.outcome,
            request: state.request,
            messageRef: state.messageRef,
          };
        case 'cleared':
          throw new IllegalPromptTransition(state.status, event.type);
      }
  }
}

/** What to journal once the platform carried out a decision; `shownAt` is where it lives now. */
export function effectEvents(decision: EffectDecision, shownAt: MessageRef): PromptEvent[] {
  switch (decision.kind) {
    case 'post':
      return [trackedEvent(decision, shownAt)];
    case 'edit':
      return [decision.event];
  }
}

/** A post that reached the platform, found again or just made. */
export function trackedEvent(decision: PostDecision, messageRef: MessageRef): PromptTracked {
  return {
    type: 'PendingApprovalPromptTracked',
    seq: decision.seq,
    request: decision.view.request,
    messageRef,
    shown: decision.view.kind,
  };
}

function decideUntracked(output: OrderedCallOutput): PromptDecision {
  switch (output.type) {
    case 'ToolInteractionRequest':
      return { kind: 'post', seq: output.seq, view: { kind: 'pending', request: output } };
    case 'ToolInteractionUpdate':
      if (output.status === 'Tallied') {
        // G1: the first post missed (or lost); the tally's request shows the prompt as it is.
        return output.request === undefined
          ? drop('refresh_without_request')
          : { kind: 'post', seq: output.seq, view: { kind: 'pending', request: output.request } };
      }
      if (output.status !== 'RefreshedAfterRestart') {
        return tombstone(output.seq);
      }
      // Posted as `refreshed`, not `pending`: the approver should see this prompt survived a
      // restart and is still valid, whichever binding replica happens to be posting it.
      return output.request === undefined
        ? drop('refresh_without_request')
        : { kind: 'post', seq: output.seq, view: { kind: 'refreshed', request: output.request } };
    case 'ToolInteractionResolved':
      return tombstone(output.seq);
  }
}

function decidePending(state: PendingState, output: OrderedCallOutput): PromptDecision {
  const { request, messageRef } = state;
  switch (output.type) {
    case 'ToolInteractionRequest':
      return drop('duplicate_request');
    case 'ToolInteractionUpdate':
      return decidePendingUpdate(state, output);
    case 'ToolInteractionResolved':
      return {
        kind: 'edit',
        messageRef,
        view: {
          kind: 'resolved',
          request,
          optionKey: output.optionKey,
          label: output.label,
          resolvedBy: output.resolvedBy,
          ...(output.edit === undefined ? {} : { edit: output.edit }),
          ...(output.approvals === undefined ? {} : { approvals: output.approvals }),
        },
        event: resolvedEvent(output),
      };
  }
}

function decidePendingUpdate(state: PendingState, update: ToolInteractionUpdate): PromptDecision {
  const { request, messageRef } = state;
  const reason = update.reason === undefined ? {} : { reason: update.reason };
  switch (update.status) {
    case 'RefreshedAfterRestart': {
      // A refresh of a prompt with a quorum carries its tally as it stands: show that one.
      const shown = update.request?.quorum === undefined ? request : update.request;
      return {
        kind: 'edit',
        messageRef,
        view: { kind: 'refreshed', request: shown },
        event: {
          type: 'PendingApprovalPromptRefreshed',
          seq: update.seq,
          ...(shown === request ? {} : { request: shown }),
        },
      };
    }
    case 'Tallied': {
      // G1: an approval was counted; the buttons stay for the others.
      const shown = update.request ?? request;
      return {
        kind: 'edit',
        messageRef,
        view: { kind: 'pending', request: shown },
        event: { type: 'PendingApprovalPromptRefreshed', seq: update.seq, request: shown },
      };
    }
    case 'Abandoned':
      return {
        kind: 'edit',
        messageRef,
        view: { kind: 'abandoned', request, ...reason },
        event: {
          type: 'PendingApprovalPromptCleared',
          seq: update.seq,
          outcome: 'abandoned',
          ...reason,
        },
      };
    case 'Expired':
      return {
        kind: 'edit',
        messageRef,
        view: { kind: 'expired', request, ...reason },
        event: {
          type: 'PendingApprovalPromptCleared',
          seq: update.seq,
          outcome: 'expired',
          ...reason,
        },
      };
  }
}

function noticeFor(state: PromptState, rejected: ToolInteractionRejected): PromptDecision {
  const near = messageRefOf(state);
  return {
    kind: 'notice',
    to: rejected.sender,
    text: rejected.text,
    ...(near === undefined ? {} : { near }),
  };
}

/** Where the prompt is shown, if anywhere: a notice is placed next to it. */
function messageRefOf(state: PromptState): MessageRef | undefined {
  switch (state.status) {
    case 'untracked':
      return undefined;
    case 'pending':
    case 'cleared':
      return state.messageRef;
  }
}

function resolvedEvent(resolved: ToolInteractionResolved): PromptCleared {
  return {
    type: 'PendingApprovalPromptCleared',
    seq: resolved.seq,
    outcome: 'resolved',
    resolution: {
      optionKey: resolved.optionKey,
      label: resolved.label,
      resolvedBy: resolved.resolvedBy,
      ...(resolved.edit === undefined ? {} : { edit: resolved.edit }),
    },
  };
}

function tombstone(seq: number): PromptDecision {
  return {
    kind: 'tombstone',
    event: { type: 'PendingApprovalPromptCleared', seq, outcome: 'tombstone' },
  };
}

function drop(reason: PromptDropReason): PromptDecision {
  return { kind: 'drop', reason };
}
