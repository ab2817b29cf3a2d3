import type { Post } from '@mattermost/types/posts';
import { checkTypedAnswerPost, type ClaimedPost } from './mattermost-typed-answer.rules';

const claimed: ClaimedPost = {
  postId: 'reply1',
  userId: 'alice',
  channelId: 'town',
  rootId: 'root1',
  text: '@tollgate always',
};

function post(overrides: Partial<Post> = {}): Post {
  return {
    id: 'reply1',
    user_id: 'alice',
    channel_id: 'town',
    root_id: 'root1',
    message: '@tollgate always',
    type: '',
    delete_at: 0,
    props: {},
    ...overrides,
  } as Post;
}

describe('checkTypedAnswerPost (X13)', () => {
  it('X13 believes a post the server shows as the request describes it, in the post’s thread', () => {
    expect(checkTypedAnswerPost(claimed, post())).toEqual({ kind: 'verified', threadId: 'root1' });
    const root = post({ id: 'root2', root_id: '' });
    expect(checkTypedAnswerPost({ ...claimed, postId: 'root2', rootId: undefined }, root)).toEqual({
      kind: 'verified',
      threadId: 'root2',
    });
  });

  it.each<[string, ClaimedPost, Post | undefined]>([
    ['no_post', { ...claimed, postId: undefined }, post()],
    ['no_post', { ...claimed, postId: '../users/me' }, post()],
    ['unknown_post', claimed, undefined],
    ['unknown_post', claimed, post({ id: 'other' })],
    ['unknown_post', claimed, post({ delete_at: 1 })],
    ['unknown_post', claimed, post({ type: 'system_join_channel' })],
    ['wrong_author', claimed, post({ user_id: 'bob' })],
    ['wrong_author', claimed, post({ props: { from_webhook: 'true' } })],
    ['wrong_author', claimed, post({ props: { from_bot: 'true' } })],
    ['wrong_channel', claimed, post({ channel_id: 'elsewhere' })],
    ['wrong_thread', claimed, post({ root_id: 'root9' })],
    ['wrong_text', claimed, post({ message: '@tollgate hello' })],
  ])('X13 refuses %s', (reason, claim, found) => {
    expect(checkTypedAnswerPost(claim, found)).toEqual({ kind: 'refuse', reason });
  });
});
