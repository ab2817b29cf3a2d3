import { BindingHarness } from './binding-harness';
import { promptOutputs } from './prompt-outputs';

const NONCE = /^[0-9a-f]{32}$/;

/**
 * X3: the post nonce (docs/protocol.md §5, revised 2026-11-30) is the core's, not Mattermost's: new
 * for every post of a prompt, kept while the post is edited in place, held by the journal for
 * the post it tracks, so a binding can tell a click on that post from a replay.
 */
describe('X3 binding core: every post of a prompt carries a nonce the journal holds', () => {
  let harness: BindingHarness;

  beforeAll(async () => {
    harness = await BindingHarness.open('bcorenonce', { ackWaitMs: 2_000 });
    await harness.startConsumer('replica-a');
  });

  afterAll(async () => {
    await harness.close();
  });

  it('X3 a post gets a new nonce, journaled with it; every edit in place keeps it', async () => {
    const p = promptOutputs();
    const other = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    await harness.settled(await harness.publish(other.request(3)));
    const [posted] = harness.adapter.postsFor(p.promptRef);
    const nonce = posted.target.postNonce;
    expect(nonce).toMatch(NONCE);
    expect(harness.adapter.postsFor(other.promptRef)[0].target.postNonce).not.toBe(nonce);
    expect(await harness.prompts.findByKey(p.key)).toMatchObject({
      state: { status: 'pending', messageRef: posted.ref },
      postNonce: nonce,
    });

    await harness.settled(await harness.publish(p.refreshed(5)));
    await harness.settled(await harness.publish(p.resolved(7)));
    expect(harness.adapter.editsFor(p.promptRef).map((e) => e.target.postNonce)).toEqual([
      nonce,
      nonce,
    ]);
    // A cleared prompt keeps it: a click with it is known to be late, not forged.
    expect(await harness.prompts.findByKey(p.key)).toMatchObject({
      state: { status: 'cleared', outcome: 'resolved' },
      postNonce: nonce,
    });
  });

  it('X3 a refresh with an empty journal re-posts with a nonce the journal holds', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.refreshed(9)));
    const [posted] = harness.adapter.postsFor(p.promptRef);
    expect(posted.view.kind).toBe('refreshed');
    expect(posted.target.postNonce).toMatch(NONCE);
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'pending',
      post_nonce: posted.target.postNonce,
    });
  });

  it('X3 a post adopted after it timed out keeps the nonce it was made with', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postPrompt', {
      kind: 'transient',
      reason: 'timeout',
      afterAccepting: true,
    });
    await harness.settled(await harness.publish(p.request(3)));
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(1);
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'pending',
      intent: null,
      post_nonce: posts[0].target.postNonce,
    });
  });

  it('X3 a post retried after one that never reached the platform is journaled with its own nonce', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postPrompt', { kind: 'transient', reason: 'server_error' });
    await harness.settled(await harness.publish(p.request(3)));
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(1);
    const row = await harness.promptRow(p.key);
    expect(row).toMatchObject({ status: 'pending', post_nonce: posts[0].target.postNonce });
  });
});
