import type { CallOutput } from '@tollgate/protocol';
import {
  aRejected,
  aRequest,
  aResolved,
  anUpdate,
} from '../../../protocol/src/testing/message-fixtures';
import type { MessageRef } from '../platform-adapter.port';
import type { PromptDecision } from './prompt-decision';
import type { PromptEvent } from './prompt-event';
import { decidePrompt, effectEvents, evolvePrompt } from './prompt-lifecycle.decider';
import { IllegalPromptTransition } from './prompt-lifecycle.errors';
import { UNTRACKED, type PromptState } from './prompt-state';

const REF: MessageRef = { channelId: 'C0001', messageId: '1700000005.000100' };
const request = aRequest(); // seq 3
const requestReason = 'a newer message superseded it';

const tracked: PromptEvent = {
  type: 'PendingApprovalPromptTracked',
  seq: 3,
  request,
  messageRef: REF,
  shown: 'pending',
};
const resolvedAt8: PromptEvent = {
  type: 'PendingApprovalPromptCleared',
  seq: 8,
  outcome: 'resolved',
  resolution: { optionKey: 'approve_once', label: 'Approve once', resolvedBy: { id: 'U0001' } },
};
const tombstonedAt9: PromptEvent = {
  type: 'PendingApprovalPromptCleared',
  seq: 9,
  outcome: 'tombstone',
};

/** Given the journal so far, as the projection folds it. */
function given(...events: PromptEvent[]): PromptState {
  return events.reduce(evolvePrompt, UNTRACKED);
}

/** When an output arrives: decide, and where the platform answered, evolve as the journal will. */
function when(state: PromptState, output: CallOutput) {
  const decision = decidePrompt(state, output);
  const events: PromptEvent[] =
    decision.kind === 'post' || decision.kind === 'edit'
      ? effectEvents(decision, REF)
      : decision.kind === 'tombstone'
        ? [decision.event]
        : [];
  return { decision, then: events.reduce(evolvePrompt, state) };
}

const refreshed = (seq: number) =>
  anUpdate({ id: `${request.sessionId}:${seq}:0`, seq, status: 'RefreshedAfterRestart' });
const abandoned = (seq: number) =>
  anUpdate({
    id: `${request.sessionId}:${seq}:0`,
    seq,
    status: 'Abandoned',
    request: undefined,
    reason: requestReason,
  });
const expired = (seq: number) =>
  anUpdate({ id: `${request.sessionId}:${seq}:0`, seq, status: 'Expired', request: undefined });
const resolved = (seq: number) => aResolved({ id: `${request.sessionId}:${seq}:0`, seq });
const requestAt = (seq: number) => aRequest({ id: `${request.sessionId}:${seq}:0`, seq });

describe('prompt lifecycle decider (docs/architecture.md §4.1)', () => {
  describe('given no record of the prompt', () => {
    const state = given();

    it('when a Request arrives, then it posts with buttons and becomes pending', () => {
      const { decision, then } = when(state, request);
      expect(decision).toEqual({ kind: 'post', seq: 3, view: { kind: 'pending', request } });
      expect(then).toEqual({ status: 'pending', lastSeq: 3, request, messageRef: REF });
    });

    it('when a refresh arrives, then it posts a fresh prompt from its request, shown as refreshed', () => {
      const { decision, then } = when(state, refreshed(7));
      expect(decision).toEqual({ kind: 'post', seq: 7, view: { kind: 'refreshed', request } });
      expect(then).toEqual({ status: 'pending', lastSeq: 7, request, messageRef: REF });
    });

    it.each([
      ['Abandoned', abandoned(7)],
      ['Expired', expired(7)],
      ['Resolved', resolved(7)],
    ])('when %s arrives, then it is tombstoned: cleared, nothing shown', (_name, output) => {
      const { decision, then } = when(state, output);
      expect(decision).toEqual({
        kind: 'tombstone',
        event: { type: 'PendingApprovalPromptCleared', seq: 7, outcome: 'tombstone' },
      });
      expect(then).toEqual({ status: 'cleared', lastSeq: 7, outcome: 'tombstone' });
    });

    it('when Rejected arrives, then the clicker gets a private notice and nothing changes', () => {
      const { decision, then } = when(state, aRejected());
      expect(decision).toEqual({
        kind: 'notice',
        to: { id: 'U0002' },
        text: 'This prompt has expired.',
      });
      expect(then).toBe(state);
    });

    it('when a refresh without its request arrives (refused on the wire), then it is dropped', () => {
      const { decision } = when(state, { ...refreshed(7), request: undefined });
      expect(decision).toEqual({ kind: 'drop', reason: 'refresh_without_request' });
    });
  });

  describe('given a pending prompt (tracked at seq 3)', () => {
    const state = given(tracked);

    it('when a newer Request for it arrives, then it is dropped as a duplicate', () => {
      expect(when(state, requestAt(5)).decision).toEqual({
        kind: 'drop',
        reason: 'duplicate_request',
      });
    });

    it('when a refresh arrives, then it edits in place keeping the buttons and stays pending', () => {
      const { decision, then } = when(state, refreshed(7));
      expect(decision).toEqual({
        kind: 'edit',
        messageRef: REF,
        view: { kind: 'refreshed', request },
        event: { type: 'PendingApprovalPromptRefreshed', seq: 7 },
      });
      expect(then).toEqual({ status: 'pending', lastSeq: 7, request, messageRef: REF });
    });

    it('when Abandoned arrives, then it edits with buttons removed and the reason, and clears', () => {
      const { decision, then } = when(state, abandoned(7));
      expect(decision).toEqual({
        kind: 'edit',
        messageRef: REF,
        view: { kind: 'abandoned', request, reason: requestReason },
        event: {
          type: 'PendingApprovalPromptCleared',
          seq: 7,
          outcome: 'abandoned',
          reason: requestReason,
        },
      });
      expect(then).toEqual({
        status: 'cleared',
        lastSeq: 7,
        outcome: 'abandoned',
        request,
        messageRef: REF,
      });
    });

    it('when Expired arrives, then it edits with buttons removed and clears', () => {
      const { decision, then } = when(state, expired(7));
      expect(decision).toEqual({
        kind: 'edit',
        messageRef: REF,
        view: { kind: 'expired', request },
        event: { type: 'PendingApprovalPromptCleared', seq: 7, outcome: 'expired' },
      });
      expect(then).toMatchObject({ status: 'cleared', outcome: 'expired', messageRef: REF });
    });

    it('when Resolved arrives, then it edits with the decision and who, and clears', () => {
      const { decision, then } = when(state, resolved(8));
      expect(decision).toEqual({
        kind: 'edit',
        messageRef: REF,
        view: {
          kind: 'resolved',
          request,
          optionKey: 'approve_once',
          label: 'Approve once',
          resolvedBy: { id: 'U0001' },
        },
        event: resolvedAt8,
      });
      expect(then).toEqual({
        status: 'cleared',
        lastSeq: 8,
        outcome: 'resolved',
        request,
        messageRef: REF,
      });
    });

    it('when Rejected arrives, then a private notice next to the prompt and no edit', () => {
      const { decision, then } = when(state, aRejected({ reason: 'wrong_requester' }));
      expect(decision).toEqual({
        kind: 'notice',
        to: { id: 'U0002' },
        text: 'This prompt has expired.',
        near: REF,
      });
      expect(then).toBe(state);
    });
  });

  describe('given a cleared prompt (resolved at seq 8)', () => {
    const state = given(tracked, resolvedAt8);

    it.each([
      ['Request', requestAt(9)],
      ['a refresh', refreshed(9)],
      ['Abandoned', abandoned(9)],
      ['Expired', expired(9)],
      ['Resolved', resolved(9)],
    ])(
      'when a newer %s arrives, then it is dropped: terminal states never change',
      (_n, output) => {
        const { decision, then } = when(state, output);
        expect(decision).toEqual({ kind: 'drop', reason: 'prompt_cleared' });
        expect(then).toBe(state);
      },
    );

    it('when Rejected arrives (the losing click of a race), then a notice and the prompt stays', () => {
      const { decision, then } = when(state, aRejected());
      expect(decision).toEqual({
        kind: 'notice',
        to: { id: 'U0002' },
        text: 'This prompt has expired.',
        near: REF,
      });
      expect(then).toBe(state);
    });
  });

  describe('the seq rule: Request, Update and Resolved not newer than the last applied are dropped', () => {
    it.each([
      ['the same Request redelivered', requestAt(3)],
      ['an older refresh', refreshed(2)],
      ['an Abandoned at the same seq', abandoned(3)],
      ['an older Resolved', resolved(1)],
    ])('given pending at seq 3, when %s arrives, then it is dropped as stale', (_n, output) => {
      expect(when(given(tracked), output).decision).toEqual({ kind: 'drop', reason: 'stale_seq' });
    });

    it('given a refresh applied at seq 7, when the same refresh is redelivered, then nothing happens (B7)', () => {
      const afterRefresh = when(given(), refreshed(7)).then;
      expect(when(afterRefresh, refreshed(7)).decision).toEqual({
        kind: 'drop',
        reason: 'stale_seq',
      });
      expect(when(afterRefresh, request).decision).toEqual({ kind: 'drop', reason: 'stale_seq' });
    });

    it('given cleared at seq 8, when a Resolved at seq 8 is redelivered, then it is stale, not a second edit', () => {
      expect(when(given(tracked, resolvedAt8), resolved(8)).decision).toEqual({
        kind: 'drop',
        reason: 'stale_seq',
      });
    });

    it('Rejected is exempt: seq 0 still reaches the clicker of a pending prompt', () => {
      expect(when(given(tracked), aRejected({ seq: 0 })).decision.kind).toBe('notice');
    });
  });

  describe('B8 out of order: Abandoned before its Request', () => {
    it('tombstones, then drops the late Request as stale: nothing live is ever shown', () => {
      const first = when(given(), abandoned(9));
      expect(first.decision.kind).toBe('tombstone');
      expect(first.then).toEqual({ status: 'cleared', lastSeq: 9, outcome: 'tombstone' });

      const late = when(first.then, request);
      expect(late.decision).toEqual({ kind: 'drop', reason: 'stale_seq' });
      expect(late.then).toEqual(first.then);
    });

    it('a Request newer than the tombstone is dropped too, as cleared', () => {
      expect(when(given(tombstonedAt9), requestAt(12)).decision).toEqual({
        kind: 'drop',
        reason: 'prompt_cleared',
      });
    });

    it('a Rejected for a tombstoned prompt is still noticed, with nothing to sit next to', () => {
      expect(when(given(tombstonedAt9), aRejected()).decision).toEqual({
        kind: 'notice',
        to: { id: 'U0002' },
        text: 'This prompt has expired.',
      });
    });
  });

  describe('evolve refuses events the state cannot take', () => {
    it.each<[string, PromptEvent[], PromptEvent]>([
      ['tracked twice', [tracked], tracked],
      ['refreshed while untracked', [], { type: 'PendingApprovalPromptRefreshed', seq: 4 }],
      [
        'refreshed after clearing',
        [tracked, resolvedAt8],
        { type: 'PendingApprovalPromptRefreshed', seq: 9 },
      ],
      ['cleared twice', [tombstonedAt9], resolvedAt8],
      ['tracked after a tombstone', [tombstonedAt9], tracked],
    ])('%s', (_n, history, event) => {
      expect(() => evolvePrompt(given(...history), event)).toThrow(IllegalPromptTransition);
    });
  });

  it('every decision kind is reachable from the table', () => {
    const kinds = new Set<PromptDecision['kind']>([
      when(given(), request).decision.kind,
      when(given(), abandoned(4)).decision.kind,
      when(given(tracked), resolved(8)).decision.kind,
      when(given(tracked), requestAt(3)).decision.kind,
      when(given(), aRejected()).decision.kind,
    ]);
    expect([...kinds].sort()).toEqual(['drop', 'edit', 'notice', 'post', 'tombstone']);
  });
});

describe('G1 a tally on a prompt with a quorum', () => {
  const quorumRequest = {
    ...request,
    quorum: { required: 2, approvals: [], waitingFor: [{ id: 'U_A' }, { id: 'U_B' }] },
  };
  const tallied = (seq: number) =>
    anUpdate({
      id: `${request.sessionId}:${seq}:0`,
      seq,
      status: 'Tallied',
      request: {
        ...quorumRequest,
        quorum: {
          required: 2,
          approvals: [{ by: { id: 'U_A' }, at: '2026-12-01T17:00:00.000Z' }],
          waitingFor: [{ id: 'U_B' }],
        },
      },
    });

  it('G1 edits the pending prompt in place, keeping its buttons, and remembers the tally', () => {
    const state = given({ ...tracked, request: quorumRequest });
    const { decision, then } = when(state, tallied(5));
    expect(decision).toMatchObject({ kind: 'edit', view: { kind: 'pending' } });
    expect(then).toMatchObject({ status: 'pending', lastSeq: 5 });
    expect(then.status === 'pending' && then.request.quorum?.approvals).toHaveLength(1);
  });

  it('G1 a restart refresh after a tally shows the tally the refresh carries', () => {
    const state = given({ ...tracked, request: quorumRequest });
    const afterTally = when(state, tallied(5)).then;
    const refresh = anUpdate({
      id: `${request.sessionId}:7:0`,
      seq: 7,
      status: 'RefreshedAfterRestart',
      request: tallied(5).request,
    });
    const { decision, then } = when(afterTally, refresh);
    expect(decision).toMatchObject({ kind: 'edit', view: { kind: 'refreshed' } });
    expect(decision.kind === 'edit' && decision.view.request.quorum?.approvals).toHaveLength(1);
    expect(then.status === 'pending' && then.request.quorum?.approvals).toHaveLength(1);
  });

  it('G1 a tally for a prompt never shown posts it as it stands; a stale one is dropped', () => {
    expect(when(UNTRACKED, tallied(5)).decision).toMatchObject({
      kind: 'post',
      view: { kind: 'pending' },
    });
    const state = when(given({ ...tracked, request: quorumRequest }), tallied(5)).then;
    expect(decidePrompt(state, tallied(5))).toEqual({ kind: 'drop', reason: 'stale_seq' });
  });
});
