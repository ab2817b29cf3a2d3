import { DLQ_HEADERS } from '@tollgate/protocol';
import { bob } from '../../support/commands';
import { waitFor } from '../../support/wait-for';
import { BindingHarness, SERVICE } from './binding-harness';
import { promptOutputs } from './prompt-outputs';

/**
 * The prompt lifecycle of docs/architecture.md §4.1 driven through the binding's real durable
 * consumer: outputs published to <PREFIX>_OUT, effects observed on a recorded platform,
 * the journal read back from PostgreSQL.
 */
describe('binding core: outputs through the consumer', () => {
  let harness: BindingHarness;

  beforeAll(async () => {
    harness = await BindingHarness.open('bcorelife');
    await harness.startConsumer();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('B1 a Request is posted once with its buttons and journaled as Tracked with the message ref', async () => {
    const p = promptOutputs();
    const request = p.request(3);

    const attempt = await harness.settled(await harness.publish(request));

    expect(attempt.handled).toMatchObject({ outcome: 'posted' });
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(1);
    expect(posts[0].view).toEqual({ kind: 'pending', request });
    expect(posts[0].target).toEqual({
      conversation: p.conversation,
      promptRef: p.promptRef,
      postNonce: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => [e.type, e.seq])).toEqual([['PendingApprovalPromptTracked', 3]]);
    expect(journal[0].data).toMatchObject({ messageRef: posts[0].ref, shown: 'pending' });
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'pending',
      last_seq: 3,
      prompt_ref: p.promptRef,
      message_ref: posts[0].ref,
      lease_owner: null,
      intent: null,
    });
    expect(await harness.sessions.has(p.sessionId)).toBe(true);
  });

  it('B9 a Request delivered again (past the duplicate window) posts nothing more', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));

    const again = await harness.settled(await harness.publish(p.request(3), 'republished-1'));

    expect(again.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    expect(harness.adapter.postsFor(p.promptRef)).toHaveLength(1);
    expect(await harness.journal(p.key)).toHaveLength(1);
  });

  it('B3 Resolved edits once with the decision and who, buttons removed, and journals Cleared', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    const [post] = harness.adapter.postsFor(p.promptRef);

    const resolved = await harness.settled(await harness.publish(p.resolved(8, bob)));
    const again = await harness.settled(await harness.publish(p.resolved(8, bob), 'again-8'));

    expect(resolved.handled).toEqual({ outcome: 'edited', view: 'resolved' });
    expect(again.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    const edits = harness.adapter.editsFor(p.promptRef);
    expect(edits).toHaveLength(1);
    expect(edits[0].ref).toEqual(post.ref);
    expect(edits[0].view).toMatchObject({
      kind: 'resolved',
      optionKey: 'approve_once',
      label: 'Approve once',
      resolvedBy: bob,
    });
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptCleared',
    ]);
    expect(journal[1].data).toMatchObject({ seq: 8, outcome: 'resolved' });
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'cleared',
      outcome: 'resolved',
    });
  });

  it('B4 Abandoned edits with buttons removed and the reason; later outputs change nothing', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));

    const abandoned = await harness.settled(await harness.publish(p.abandoned(6)));
    const refreshLater = await harness.settled(await harness.publish(p.refreshed(9)));
    const resolvedLater = await harness.settled(await harness.publish(p.resolved(10)));

    expect(abandoned.handled).toEqual({ outcome: 'edited', view: 'abandoned' });
    expect(refreshLater.handled).toEqual({ outcome: 'dropped', reason: 'prompt_cleared' });
    expect(resolvedLater.handled).toEqual({ outcome: 'dropped', reason: 'prompt_cleared' });
    const edits = harness.adapter.editsFor(p.promptRef);
    expect(edits.map((e) => e.view)).toEqual([
      { kind: 'abandoned', request: p.request(3), reason: 'a newer message superseded it' },
    ]);
    expect((await harness.journal(p.key)).map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptCleared',
    ]);
  });

  it('B5 a refresh of a tracked prompt edits it in place, buttons kept, still tracked', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));

    const refreshed = await harness.settled(await harness.publish(p.refreshed(7)));

    expect(refreshed.handled).toEqual({ outcome: 'edited', view: 'refreshed' });
    expect(harness.adapter.postsFor(p.promptRef)).toHaveLength(1);
    expect(harness.adapter.editsFor(p.promptRef).map((e) => e.view.kind)).toEqual(['refreshed']);
    expect((await harness.journal(p.key)).map((e) => e.type)).toEqual([
      'PendingApprovalPromptTracked',
      'PendingApprovalPromptRefreshed',
    ]);
    expect(await harness.promptRow(p.key)).toMatchObject({ status: 'pending', last_seq: 7 });
  });

  it('B7 a refresh with an empty journal posts a fresh prompt once; the same refresh again posts nothing', async () => {
    const p = promptOutputs();

    const first = await harness.settled(await harness.publish(p.refreshed(7)));
    const second = await harness.settled(await harness.publish(p.refreshed(7), 'refresh-again'));
    const lateRequest = await harness.settled(await harness.publish(p.request(3)));

    expect(first.handled).toMatchObject({ outcome: 'posted' });
    expect(second.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    expect(lateRequest.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    const posts = harness.adapter.postsFor(p.promptRef);
    expect(posts).toHaveLength(1);
    expect(posts[0].view).toEqual({ kind: 'refreshed', request: p.request(3) });
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => [e.type, e.seq])).toEqual([['PendingApprovalPromptTracked', 7]]);
    expect(journal[0].data).toMatchObject({ shown: 'refreshed' });
  });

  it('B8 Abandoned before its Request: tombstoned, nothing is ever posted', async () => {
    const p = promptOutputs();

    const abandoned = await harness.settled(await harness.publish(p.abandoned(6)));
    const request = await harness.settled(await harness.publish(p.request(3)));

    expect(abandoned.handled).toEqual({ outcome: 'tombstoned' });
    expect(request.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    expect(harness.adapter.postsFor(p.promptRef)).toEqual([]);
    expect(harness.adapter.editsFor(p.promptRef)).toEqual([]);
    const journal = await harness.journal(p.key);
    expect(journal.map((e) => [e.type, e.seq])).toEqual([['PendingApprovalPromptCleared', 6]]);
    expect(journal[0].data).toMatchObject({ outcome: 'tombstone' });
    expect(await harness.promptRow(p.key)).toMatchObject({
      status: 'cleared',
      outcome: 'tombstone',
      message_ref: null,
    });
  });

  it('B9 an output overtaken by a newer one is dropped as stale', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    await harness.settled(await harness.publish(p.refreshed(9)));

    const older = await harness.settled(await harness.publish(p.refreshed(7)));

    expect(older.handled).toEqual({ outcome: 'dropped', reason: 'stale_seq' });
    expect(harness.adapter.editsFor(p.promptRef)).toHaveLength(1);
    expect(await harness.promptRow(p.key)).toMatchObject({ last_seq: 9 });
  });

  it('B11 Rejected is one private notice to the clicker, next to the prompt; redelivered, still one', async () => {
    const p = promptOutputs();
    await harness.settled(await harness.publish(p.request(3)));
    const [post] = harness.adapter.postsFor(p.promptRef);
    const rejected = p.rejected('1700000009.000100:U_BOB');

    const first = await harness.settled(await harness.publish(rejected));
    const again = await harness.settled(await harness.publish(rejected, 'rejected-again'));

    expect(first.handled).toEqual({ outcome: 'noticed' });
    expect(again.handled).toEqual({ outcome: 'dropped', reason: 'already_delivered' });
    expect(harness.adapter.noticesTo(bob.id)).toEqual([
      {
        op: 'sendNotice',
        conversation: p.conversation,
        to: bob,
        text: 'Only Alice can answer this prompt.',
        near: post.ref,
      },
    ]);
    expect(harness.adapter.editsFor(p.promptRef)).toEqual([]);
    expect(await harness.promptRow(p.key)).toMatchObject({ status: 'pending', last_seq: 3 });
  });

  it('B9 a TextOutput is posted once even when delivered again, and its session is remembered', async () => {
    const p = promptOutputs();
    const text = p.text(4, 'You said: hello');

    const first = await harness.settled(await harness.publish(text));
    const again = await harness.settled(await harness.publish(text, 'text-again'));

    expect(first.handled).toMatchObject({ outcome: 'text_posted' });
    expect(again.handled).toEqual({ outcome: 'dropped', reason: 'already_delivered' });
    expect(harness.adapter.textsFor(text.id)).toEqual([
      expect.objectContaining({ text: 'You said: hello', role: 'assistant', outputId: text.id }),
    ]);
    expect(await harness.sessions.has(p.sessionId)).toBe(true);
  });

  it('B15 malformed payloads are dead-lettered with their reason and the consumer keeps going', async () => {
    const p = promptOutputs();
    const textSubject = harness.subjects.textOutput('slack', p.sessionId);
    const before = (await harness.deadLetters()).length;

    const garbled = await harness.publishRaw(textSubject, new TextEncoder().encode('{no'), 'bad-1');
    const futureVersion = await harness.publishRaw(
      textSubject,
      new TextEncoder().encode(JSON.stringify({ ...p.text(4), v: 2 })),
      'bad-2',
    );
    const wrongSubject = await harness.publishRaw(
      harness.subjects.textOutput('slack', promptOutputs().sessionId),
      new TextEncoder().encode(JSON.stringify(p.text(5))),
      'bad-3',
    );
    const request = await harness.publish(p.request(3));

    expect((await harness.settled(garbled)).permanent).toBe(true);
    expect((await harness.settled(futureVersion)).permanent).toBe(true);
    expect((await harness.settled(wrongSubject)).permanent).toBe(true);
    expect((await harness.settled(request)).handled).toMatchObject({ outcome: 'posted' });

    const copies = await waitFor('three dead letters', async () => {
      const all = await harness.deadLetters();
      return all.length >= before + 3 && all.slice(before);
    });
    expect(copies.map((c) => c.subject)).toEqual(Array(3).fill(`${harness.prefix}.dlq.${SERVICE}`));
    expect(copies.map((c) => c.headers.get(DLQ_HEADERS.reason))).toEqual([
      expect.stringMatching(/^invalid_payload: invalid_json: /),
      expect.stringMatching(/^invalid_payload: unknown_version: /),
      expect.stringMatching(/^invalid_payload: subject_mismatch: /),
    ]);
    expect(copies.map((c) => c.headers.get(DLQ_HEADERS.service))).toEqual(Array(3).fill(SERVICE));
    expect(copies[0].headers.get(DLQ_HEADERS.originalSubject)).toBe(textSubject);
    expect(harness.adapter.textsFor(p.text(4).id)).toEqual([]);
  });
});
