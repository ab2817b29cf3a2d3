import { decidePrompt } from '@tollgate/binding-core';
import { DLQ_HEADERS, type ToolInteractionRequest } from '@tollgate/protocol';
import { waitFor } from '../../support/wait-for';
import { BindingHarness } from './binding-harness';
import { promptOutputs } from './prompt-outputs';

/**
 * Platform failures, crashes and a second replica: every output ends in exactly one effect
 * (docs/architecture.md §4.1, B12, B13).
 */
describe('binding core: failures and concurrent replicas', () => {
  let harness: BindingHarness;

  beforeAll(async () => {
    harness = await BindingHarness.open('bcorefail', { ackWaitMs: 2_000 });
    await harness.startConsumer('replica-a');
  });

  afterAll(async () => {
    await harness.close();
  });

  /**
   * Replica B claims the Request and posts it, then dies before journaling: the post landed,
   * the prompt keeps B's unfinished intent until B's long lease runs out.
   */
  async function postedByDeadReplica(
    p: ReturnType<typeof promptOutputs>,
    request: ToolInteractionRequest,
  ) {
    const replicaB = await harness.prompts.claim(
      { key: p.key, conversation: p.conversation, owner: 'replica-b', leaseMs: 120_000 },
      (state) => decidePrompt(state, request),
    );
    if (replicaB.kind !== 'claimed' || replicaB.decision.kind !== 'post') {
      throw new Error(`replica B could not claim a post: ${replicaB.kind}`);
    }
    const postedByB = await harness.adapter.postPrompt(replicaB.target, replicaB.decision.view);
    return { replicaB, postedByB };
  }

  it('B12 a transient failure is retried with a delay honouring Retry-After and ends in one post', async () => {
    const p = promptOutputs();
    harness.adapter.failNext(
      'postPrompt',
      { kind: 'transient', reason: 'rate_limited', retryAfterMs: 300 },
      2,
    );

    const seq = await harness.publish(p.request(3));
    const final = await harness.settled(seq);

    expect(final.handled).toMatchObject({ outcome: 'posted' });
    const attempts = harness.attemptsOf(seq);
    expect(attempts.map((a) => a.failure ?? 'ok')).toEqual([
      'post_prompt: rate_limited',
      'post_prompt: rate_limited',
      'ok',
    ]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(300);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(300);
    expect(harness.adapter.postsFor(p.promptRef)).toHaveLength(1);
    expect((await harness.journal(p.key)).map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
    ]);
  });

  it('B12 a transient failure of an edit is retried and edits once', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    harness.adapter.failNext('editPrompt', { kind: 'transient', reason: 'server_error' });

    const seq = await harness.publish(p.resolved(8));
    const final = await harness.settled(seq);

    expect(final.handled).toEqual({ outcome: 'edited', view: 'resolved' });
    expect(harness.attemptsOf(seq).map((a) => a.failure ?? 'ok')).toEqual([
      'edit_prompt: server_error',
      'ok',
    ]);
    expect(harness.adapter.editsFor(p.promptRef)).toHaveLength(1);
  });

  it('B12 a post that timed out after the platform accepted it is found and adopted, not repeated', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postPrompt', {
      kind: 'transient',
      reason: 'timeout',
      afterAccepting: true,
    });

    const seq = await harness.publish(p.request(3));
    const final = await harness.settled(seq);

    // The retry looked for the post, adopted it, and then found the Request already applied.
    expect(final.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(1);
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => e.type)).toEqual(['PendingApprovalPromptTracked']);
    expect(journal[0].data).toMatchObject({ seq: 3, messageRef: posts[0].ref });
    expect(await harness.promptRow(p.key)).toMatchObject({ status: 'pending', intent: null });
  });

  it('R2 a Request the platform refuses for good is reported undeliverable, not dead-lettered; nothing is shown', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postPrompt', {
      kind: 'permanent',
      reason: 'slack_channel_not_found',
      platformCode: 'channel_not_found',
    });
    const request = p.request(3);

    const seq = await harness.publish(request);
    const final = await harness.settled(seq);

    expect(final.handled).toEqual({ outcome: 'undeliverable', reason: 'channel_not_found' });
    expect(harness.attemptsOf(seq)).toHaveLength(1);
    const commands = await harness.commandsPublished();
    expect(commands.filter((c) => c.sessionId === p.sessionId)).toEqual([
      expect.objectContaining({
        type: 'ToolInteractionUndeliverable',
        id: `undeliverable:${request.id}`,
        callId: p.callId,
        reason: 'channel_not_found',
        conversation: request.conversation,
      }),
    ]);
    expect((await harness.deadLetters()).filter((c) => c.subject.includes(p.sessionId))).toEqual(
      [],
    );
    expect(harness.adapter.postsFor(p.promptRef)).toEqual([]);
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'untracked',
      lease_owner: null,
      intent: null,
    });
  });

  it('a permanent failure of a text is dead-lettered at once with its reason', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postText', { kind: 'permanent', reason: 'channel_not_found' });
    const text = p.text(4, 'never shown');

    const final = await harness.settled(await harness.publish(text));

    expect(final).toMatchObject({ permanent: true, failure: 'post_text: channel_not_found' });
    const copy = await waitFor('the dead letter', async () =>
      (await harness.deadLetters()).find(
        (c) =>
          c.headers.get(DLQ_HEADERS.originalSubject) ===
          harness.subjects.textOutput('slack', p.sessionId),
      ),
    );
    expect(copy.headers.get(DLQ_HEADERS.reason)).toBe('post_text: channel_not_found');
  });

  it('R4 an edit refused for good reposts the current state with a new nonce; the journal follows it', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    const [original] = harness.adapter.postsFor(p.promptRef);
    const before = await harness.promptRow(p.key);
    harness.adapter.failNext('editPrompt', {
      kind: 'permanent',
      reason: 'slack_message_not_found',
      platformCode: 'message_not_found',
    });

    const refreshed = await harness.settled(await harness.publish(p.refreshed(5)));

    expect(refreshed.handled).toMatchObject({ outcome: 'reposted', view: 'refreshed' });
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(2);
    expect(posts[1].view.kind).toBe('refreshed');
    expect(posts[1].target.postNonce).not.toBe(original.target.postNonce);
    const row = await harness.promptRow(p.key);
    expect(row).toMatchObject({ status: 'pending', message_ref: posts[1].ref, intent: null });
    expect(row?.post_nonce).toBe(posts[1].target.postNonce);
    expect(row?.post_nonce).not.toBe(before?.post_nonce);
    expect((await harness.journal(p.key)).map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptReposted',
      'PendingApprovalPromptRefreshed',
    ]);

    // The next edit goes to the new message; nothing was dead-lettered.
    const resolved = await harness.settled(await harness.publish(p.resolved(8)));
    expect(resolved.handled).toEqual({ outcome: 'edited', view: 'resolved' });
    const edits = harness.adapter.effects.filter(
      (e) => e.op === 'editPrompt' && e.target.promptRef === p.promptRef,
    );
    expect(edits.map((e) => (e.op === 'editPrompt' ? e.ref : undefined))).toEqual([posts[1].ref]);
    expect((await harness.deadLetters()).filter((c) => c.subject.includes(p.sessionId))).toEqual(
      [],
    );
  });

  it('a transient failure of a text post is retried and posts once', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postText', { kind: 'transient', reason: 'network' });
    const text = p.text(5);

    const seq = await harness.publish(text);
    const final = await harness.settled(seq);

    expect(final.handled).toMatchObject({ outcome: 'text_posted' });
    expect(harness.attemptsOf(seq).map((a) => a.failure ?? 'ok')).toEqual([
      'post_text: network',
      'ok',
    ]);
    expect(harness.adapter.textsFor(text.id)).toHaveLength(1);
  });

  it('B13 a prompt leased by another replica is naked while held, then applied once on top', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    // Replica B has claimed the prompt for a refresh and is still talking to the platform.
    // Its lease outlasts the test's steps however slow the machine: B finishes within it by
    // construction, and nothing waits for it to run out (A retries every 250 ms at most).
    const replicaB = await harness.prompts.claim(
      { key: p.key, conversation: p.conversation, owner: 'replica-b', leaseMs: 120_000 },
      (state) => decidePrompt(state, p.refreshed(7)),
    );
    if (replicaB.kind !== 'claimed') throw new Error(`replica B could not claim: ${replicaB.kind}`);

    const seq = await harness.publish(p.resolved(8));
    const refused = await waitFor('replica A to find the prompt leased', () =>
      harness.attemptsOf(seq).find((a) => a.failure === 'prompt_leased'),
    );
    expect(refused.handled).toBeUndefined();
    expect(harness.adapter.editsFor(p.promptRef)).toEqual([]);
    expect(await harness.promptRow(p.key)).toMatchObject({ lease_owner: 'replica-b' });

    // Replica B finishes its refresh within its lease; A's retry then applies Resolved on top.
    if (replicaB.decision.kind !== 'edit') throw new Error('replica B should be editing');
    await harness.adapter.editPrompt(
      replicaB.target,
      replicaB.decision.messageRef,
      replicaB.decision.view,
    );
    expect(await harness.prompts.complete(replicaB.lease, [replicaB.decision.event])).toBe(true);

    const final = await harness.settled(seq);
    expect(final.handled).toEqual({ outcome: 'edited', view: 'resolved' });
    expect(harness.adapter.editsFor(p.promptRef).map((e) => e.view.kind)).toEqual([
      'refreshed',
      'resolved',
    ]);
    expect((await harness.journal(p.key)).map((e) => [e.type, e.seq])).toEqual([
      ['PendingApprovalPromptTracked', 3],
      ['PendingApprovalPromptRefreshed', 7],
      ['PendingApprovalPromptCleared', 8],
    ]);
    // Every attempt of replica A before B finished was refused, none applied anything.
    const attempts = harness.attemptsOf(seq).map((a) => a.failure ?? 'ok');
    expect(attempts.at(-1)).toBe('ok');
    expect(new Set(attempts.slice(0, -1))).toEqual(new Set(['prompt_leased']));
  });

  it('B13 a replica that died mid-post: the next one waits out its lease, finds the post and adopts it', async () => {
    const p = promptOutputs();
    const request = p.request(3);
    // Replica B claimed the Request and posted it, then died before journaling. Its lease runs
    // out only once A has been refused, however long the steps in between take.
    const { replicaB, postedByB } = await postedByDeadReplica(p, request);

    // JetStream redelivers the Request to replica A, which finds it leased until B's lease ends.
    const seq = await harness.publish(request);
    await waitFor('replica A to find the prompt leased', () =>
      harness.attemptsOf(seq).find((a) => a.failure === 'prompt_leased'),
    );
    await harness.expireLease(p.key);
    const final = await harness.settled(seq);

    expect(harness.attemptsOf(seq)[0].failure).toBe('prompt_leased');
    expect(final.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    expect(harness.adapter.postsFor(p.promptRef)).toHaveLength(1);
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => e.type)).toEqual(['PendingApprovalPromptTracked']);
    expect(journal[0].data).toMatchObject({ messageRef: postedByB });
    // B's late completion, had it come back to life, changes nothing.
    expect(await harness.prompts.complete(replicaB.lease, [])).toBe(false);
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'pending',
      message_ref: postedByB,
      lease_owner: null,
      intent: null,
    });
  });

  it('outputs of one prompt in flight together: at most one post, and it ends resolved', async () => {
    const p = promptOutputs();

    const seqs = await Promise.all([
      harness.publish(p.request(3)),
      harness.publish(p.refreshed(7)),
      harness.publish(p.resolved(8)),
    ]);
    await Promise.all(seqs.map((seq) => harness.settled(seq)));

    const posts = harness.adapter.postsFor(p.promptRef);
    const edits = harness.adapter.editsFor(p.promptRef);
    expect(posts.length).toBeLessThanOrEqual(1);
    const row = await harness.promptRow(p.key);
    if (posts.length === 0) {
      // Resolved was claimed first: nothing is ever shown (tombstone).
      expect(edits).toEqual([]);
      expect(row).toMatchObject({ status: 'cleared', outcome: 'tombstone' });
    } else {
      expect(edits.every((e) => e.ref.messageId === posts[0].ref.messageId)).toBe(true);
      expect(edits.at(-1)?.view.kind).toBe('resolved');
      expect(row).toMatchObject({ status: 'cleared', outcome: 'resolved', last_seq: 8 });
    }
    expect(row).toMatchObject({ lease_owner: null, intent: null });
  });

  it('R3 a look-back that fails for good settles the unfinished post as never posted; a later Resolved tombstones', async () => {
    const p = promptOutputs();
    // The post keeps failing, so its intent stays unfinished; reading the channel back is
    // refused for good (a missing scope).
    harness.adapter.failNext('postPrompt', { kind: 'transient', reason: 'timeout' }, 6);
    harness.adapter.failNext(
      'findPostedPrompt',
      { kind: 'permanent', reason: 'slack_missing_scope', platformCode: 'missing_scope' },
      10,
    );
    const requestSeq = await harness.publish(p.request(3));
    await waitFor('the post to fail once', () =>
      harness.attemptsOf(requestSeq).length > 0 ? true : undefined,
    );

    const final = await harness.settled(await harness.publish(p.resolved(8)));

    expect(final.handled).toEqual({ outcome: 'tombstoned' });
    harness.adapter.clearFailures();
    await harness.settled(requestSeq);
    expect(harness.attemptsOf(requestSeq).at(-1)?.handled).toMatchObject({ outcome: 'dropped' });
    expect(harness.adapter.postsFor(p.promptRef)).toEqual([]);
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'cleared',
      outcome: 'tombstone',
      intent: null,
    });
    expect((await harness.deadLetters()).filter((c) => c.subject.includes(p.sessionId))).toEqual(
      [],
    );
  });

  it('R3 a Resolved keeps looking for an unfinished post while the look fails for now, past the bound: the post that landed shows the decision', async () => {
    const p = promptOutputs();
    const request = p.request(3);
    // Replica B claimed the Request and posted it, then died before journaling (R6 on a slow
    // machine: the post landed after its call timed out). The approver clicked the post.
    const setOutAt = Date.now();
    const { postedByB } = await postedByDeadReplica(p, request);
    await harness.expireLease(p.key);
    // Reading the channel back fails for now, past the bound after which a Request would be
    // posted afresh: a tombstone then would leave the post that landed with live buttons.
    harness.adapter.failNext(
      'findPostedPrompt',
      { kind: 'transient', reason: 'slack_http_503' },
      1000,
    );

    const seq = await harness.publish(p.resolved(8));
    await waitFor(
      'the look to fail past the bound, or the Resolved to be settled',
      () =>
        harness
          .attemptsOf(seq)
          .find(
            (a) =>
              a.handled !== undefined ||
              (a.failure !== undefined && a.at - setOutAt > 1.5 * harness.leaseMs),
          ),
      { timeoutMs: harness.leaseMs * 6 },
    );
    // Not settled as never posted (a tombstone) while the look could still find the post.
    expect(harness.attemptsOf(seq).filter((a) => a.handled !== undefined)).toEqual([]);
    harness.adapter.clearFailures();
    const final = await harness.settled(seq);

    expect(final.handled).toEqual({ outcome: 'edited', view: 'resolved' });
    const edits = harness.adapter.editsFor(p.promptRef);
    expect(edits.map((e) => [e.ref, e.view.kind])).toEqual([[postedByB, 'resolved']]);
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptCleared',
    ]);
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'cleared',
      outcome: 'resolved',
      intent: null,
    });
  });

  it('R3 a post an earlier attempt made late is adopted with the nonce its buttons carry', async () => {
    const p = promptOutputs();
    // Every post times out without reaching the platform, and the first look-back fails for
    // good, so the prompt's intent moves on to a new nonce while no post is out there.
    harness.adapter.failNext('postPrompt', { kind: 'transient', reason: 'timeout' }, 1000);
    harness.adapter.failNext(
      'findPostedPrompt',
      { kind: 'permanent', reason: 'slack_missing_scope', platformCode: 'missing_scope' },
      1,
    );
    const request = p.request(3);
    const seq = await harness.publish(request);
    await waitFor('a post after the intent was settled', () =>
      harness.adapter.calls.filter((c) => c.op === 'postPrompt').length >= 2 ? true : undefined,
    );
    // Then an earlier attempt's post shows up, as a server that took it after the client gave
    // up makes it: with that attempt's nonce, not the latest intent's.
    const lateNonce = 'a'.repeat(32);
    const late = harness.adapter.landLate(
      { conversation: request.conversation, promptRef: p.promptRef, postNonce: lateNonce },
      { kind: 'pending', request },
    );

    const final = await waitFor('the late post to be adopted', async () => {
      const row = await harness.promptRow(p.key);
      return row?.status === 'pending' ? row : undefined;
    });

    expect(final).toMatchObject({ message_ref: late, post_nonce: lateNonce, intent: null });
    expect(harness.adapter.postsFor(p.promptRef)).toHaveLength(1);
    harness.adapter.clearFailures();
    await harness.settled(seq);
  });

  it('R3 a post that got no answer holds its prompt until it could have landed: a late post is adopted, not doubled', async () => {
    const landing = await BindingHarness.open('bcoreland', { ackWaitMs: 2_000, landingMs: 2_000 });
    try {
      await landing.startConsumer('replica-a');
      const p = promptOutputs();
      // The call times out, and the platform makes the post anyway, later than the retry
      // would have looked for it.
      landing.adapter.failNext('postPrompt', {
        kind: 'transient',
        reason: 'timeout',
        unanswered: true,
        landsAfterMs: 800,
      });

      await landing.settled(await landing.publish(p.request(3)));
      await landing.adapter.lateLandings();

      const posts = landing.adapter.postsFor(p.promptRef);
      expect(posts).toHaveLength(1);
      expect(await landing.promptRow(p.key)).toMatchObject({
        status: 'pending',
        message_ref: posts[0].ref,
        intent: null,
      });
    } finally {
      await landing.close();
    }
  });

  it('R3 a text post that got no answer holds its delivery until it could have landed: a late reply is adopted, not posted twice', async () => {
    const landing = await BindingHarness.open('bcoretextland', {
      ackWaitMs: 2_000,
      landingMs: 2_000,
    });
    try {
      await landing.startConsumer('replica-a');
      const text = promptOutputs().text(5);
      // The call times out and the platform makes the post anyway, later than a retry that
      // looked at once would have looked for it (R7 saw a Slack reply shown twice so).
      landing.adapter.failNext('postText', {
        kind: 'transient',
        reason: 'timeout',
        unanswered: true,
        landsAfterMs: 800,
      });

      const final = await landing.settled(await landing.publish(text));
      await landing.adapter.lateLandings();

      expect(final.handled).toMatchObject({ outcome: 'text_posted' });
      const [post, ...more] = landing.adapter.textsFor(text.id);
      expect(more).toEqual([]);
      expect(final.handled).toMatchObject({ messageRef: post.ref });
      expect(landing.adapter.callsOf('postText')).toHaveLength(1);
    } finally {
      await landing.close();
    }
  });

  it('R3 a retried post a platform answers with the post it already made is journaled with that post’s nonce', async () => {
    const p = promptOutputs();
    harness.adapter.dedupesPosts = true;
    const callsBefore = harness.adapter.calls.length;
    try {
      // The first post is made but answered 502; the look-back is refused for good, so the
      // retry posts with a new intent's nonce, and the platform answers with the first post.
      harness.adapter.failNext('postPrompt', {
        kind: 'transient',
        reason: 'http_502',
        afterAccepting: true,
      });
      harness.adapter.failNext(
        'findPostedPrompt',
        { kind: 'permanent', reason: 'slack_missing_scope', platformCode: 'missing_scope' },
        1,
      );

      await harness.settled(await harness.publish(p.request(3)));

      const [post, ...more] = harness.adapter.postsFor(p.promptRef);
      expect(more).toEqual([]);
      expect(await harness.promptRow(p.key)).toMatchObject({
        status: 'pending',
        message_ref: post.ref,
        post_nonce: post.target.postNonce,
        intent: null,
      });
      const posts = harness.adapter.calls.slice(callsBefore).filter((c) => c.op === 'postPrompt');
      expect(posts).toHaveLength(2);
    } finally {
      harness.adapter.dedupesPosts = false;
    }
  });

  it('R3 a post that landed while the look for it kept failing shows the outcome with the one posted afresh: no live buttons left', async () => {
    const p = promptOutputs();
    // The post lands but its call times out, and reading the channel back fails past the
    // bound: the prompt is posted afresh beside a post nobody tracks.
    harness.adapter.failNext(
      'postPrompt',
      { kind: 'transient', reason: 'timeout', afterAccepting: true },
      1,
    );
    harness.adapter.failNext(
      'findPostedPrompt',
      { kind: 'transient', reason: 'slack_http_503' },
      1000,
    );
    const seq = await harness.publish(p.request(3));
    await waitFor(
      'the request to be posted afresh',
      () => harness.attemptsOf(seq).find((a) => a.handled?.outcome === 'posted'),
      { timeoutMs: harness.leaseMs * 4 },
    );
    harness.adapter.clearFailures();
    const [stray, afresh] = harness.adapter.postsFor(p.promptRef).map((post) => post.ref);
    expect(afresh).toBeDefined();
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'pending',
      message_ref: afresh,
      stray_since: expect.any(Date),
    });

    const final = await harness.settled(await harness.publish(p.resolved(8)));

    expect(final.handled).toEqual({ outcome: 'edited', view: 'resolved' });
    const edits = harness.adapter.editsFor(p.promptRef);
    expect(edits.map((e) => [e.ref, e.view.kind])).toEqual([
      [afresh, 'resolved'],
      [stray, 'resolved'],
    ]);
  });

  it('R3 a prompt posted afresh after a look that found nothing has no stray post to look for', async () => {
    const p = promptOutputs();
    // The post's call times out without landing; the look works and finds nothing.
    harness.adapter.failNext('postPrompt', { kind: 'transient', reason: 'timeout' }, 1);
    await harness.settled(await harness.publish(p.request(3)));
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(1);
    expect(await harness.promptRow(p.key)).toMatchObject({ stray_since: null });

    await harness.settled(await harness.publish(p.resolved(8)));

    const edits = harness.adapter.editsFor(p.promptRef);
    expect(edits.map((e) => [e.ref, e.view.kind])).toEqual([[posts[0].ref, 'resolved']]);
  });

  it('R3 a look-back that keeps failing for a while settles within the bound and posts afresh once', async () => {
    const p = promptOutputs();
    harness.adapter.failNext('postPrompt', { kind: 'transient', reason: 'timeout' }, 1);
    harness.adapter.failNext(
      'findPostedPrompt',
      { kind: 'transient', reason: 'slack_http_503' },
      1000,
    );
    const startedAt = Date.now();

    const seq = await harness.publish(p.request(3));
    const final = await waitFor(
      'the request to be posted',
      () => harness.attemptsOf(seq).find((a) => a.handled?.outcome === 'posted'),
      { timeoutMs: harness.leaseMs * 4 },
    );

    harness.adapter.clearFailures();
    expect(final.at - startedAt).toBeGreaterThanOrEqual(harness.leaseMs);
    expect(harness.adapter.postsFor(p.promptRef)).toHaveLength(1);
    expect(await harness.promptRow(p.key)).toMatchObject({ status: 'pending', intent: null });
  });
});
