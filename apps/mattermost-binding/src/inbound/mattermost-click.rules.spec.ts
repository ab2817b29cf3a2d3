import type { JournaledPrompt } from '@tollgate/binding-core';
import { standardOptions, type ToolInteractionRequest } from '@tollgate/protocol';
import type { ActionContext } from './action-signature';
import { checkClick } from './mattermost-click.rules';

const NONCE = '0123456789abcdef0123456789abcdef';
const conversation = {
  platform: 'mattermost' as const,
  workspaceId: 'team',
  channelId: 'chan1',
  threadId: 'root',
};
const request = {
  type: 'ToolInteractionRequest',
  sessionId: 'mattermost-abc',
  callId: 'call_1',
  options: standardOptions(),
} as unknown as ToolInteractionRequest;
const shown = { channelId: 'chan1', messageId: 'post1' };
const context: ActionContext = {
  sessionId: 'mattermost-abc',
  callId: 'call_1',
  optionKey: 'approve_once',
  nonce: NONCE,
  sig: 'a'.repeat(64),
};
const pending: JournaledPrompt = {
  key: { sessionId: 'mattermost-abc', callId: 'call_1' },
  conversation,
  promptRef: 'ref1',
  state: { status: 'pending', lastSeq: 5, request, messageRef: shown },
  postNonce: NONCE,
};
const click = { userId: 'user1', postId: 'post1', channelId: 'chan1' };

describe('X3 which signed Mattermost clicks the journal vouches for (docs/protocol.md §5)', () => {
  it('a click on the journaled post of a pending prompt, with its nonce, goes on to the membership check in that post’s channel', () => {
    expect(checkClick(context, click, pending)).toEqual({
      kind: 'check_member',
      userId: 'user1',
      messageRef: shown,
      promptRef: 'ref1',
    });
  });

  it.each([
    ['a prompt the journal never held', click, undefined],
    ['another nonce', click, { ...pending, postNonce: 'f'.repeat(32) }],
    ['a prompt posted before nonces existed', click, { ...pending, postNonce: undefined }],
    [
      'a tombstone',
      click,
      { ...pending, state: { status: 'cleared', lastSeq: 6, outcome: 'tombstone' } },
    ],
  ] as const)('refuses %s as an unknown nonce', (_label, request, journaled) => {
    expect(checkClick(context, request, journaled as JournaledPrompt | undefined)).toEqual({
      kind: 'refuse',
      reason: expect.stringMatching(/^(unknown_nonce|wrong_post)$/),
    });
  });

  it.each([
    ['another post', { ...click, postId: 'post2' }],
    ['the post in another channel', { ...click, channelId: 'chan2' }],
  ])('refuses %s as the wrong post', (_label, request) => {
    expect(checkClick(context, request, pending)).toEqual({ kind: 'refuse', reason: 'wrong_post' });
  });

  it.each([
    ['no user', { ...click, userId: undefined }],
    ['a user id that would change the lookup path', { ...click, userId: '../users/me' }],
    ['no post', { ...click, postId: undefined }],
    ['no channel', { ...click, channelId: undefined }],
  ])('refuses a request with %s', (_label, request) => {
    expect(checkClick(context, request, pending)).toEqual({
      kind: 'refuse',
      reason: 'incomplete_request',
    });
  });

  it('a cleared prompt, clicked on its own post with its nonce, has expired', () => {
    const cleared: JournaledPrompt = {
      ...pending,
      state: { status: 'cleared', lastSeq: 7, outcome: 'resolved', request, messageRef: shown },
    };
    expect(checkClick(context, click, cleared)).toEqual({ kind: 'expired', messageRef: shown });
  });
});
