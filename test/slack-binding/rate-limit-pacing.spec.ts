import { jetstream } from '@nats-io/jetstream';
import { promptRefOf } from '@tollgate/binding-core';
import { type Conversation, encodeMessage, outputSubject } from '@tollgate/protocol';
import { SlackApiFake } from '@tollgate/platform-standins';
import { BindingFixture } from '../support/binding.fixture';
import { withClient } from '../support/database';
import { requestOutput, resolvedOutput, updateOutput } from '../support/outputs';
import { waitFor } from '../support/wait-for';

/**
 * Slack's Tier 3 limit on chat.update is about 50 calls a minute per workspace. Waiting out
 * real minutes would make this test take hours, so the minute is scaled: the fake enforces 50
 * per 60 s ÷ WINDOW_DIVISOR, and the binding, given the same TOLLGATE_RATE_WINDOW_DIVISOR,
 * paces by the same scaled window. Every ratio (limit per window, reserve, deferral slots) is
 * as in production; only the clock runs WINDOW_DIVISOR times faster.
 */
const WINDOW_DIVISOR = 50;
const TIER3_WINDOW_MS = 60_000 / WINDOW_DIVISOR;
const PENDING = 10_000;
const PUBLISH_BATCH = 50;

describe('P5 — rate limits and priorities (process, Slack Tier 3 enforced by the fake)', () => {
  const fake = new SlackApiFake({
    methodLimits: { 'chat.update': { limit: 50, windowMs: TIER3_WINDOW_MS } },
  });
  let binding: BindingFixture;
  const team = fake.identity.teamId;
  const conversation = (n: number): Conversation => ({
    platform: 'slack',
    workspaceId: team,
    channelId: `CPACE${n % 20}`,
    threadId: `1700000000.${String(n).padStart(6, '0')}`,
  });

  beforeAll(async () => {
    await fake.start();
    binding = await BindingFixture.create(
      'slack-binding',
      'pacing',
      () => ({
        SLACK_BOT_TOKEN: fake.botToken,
        SLACK_SIGNING_SECRET: 'pacing-signing-secret',
        SLACK_API_URL: fake.apiUrl,
      }),
      { TOLLGATE_RATE_WINDOW_DIVISOR: String(WINDOW_DIVISOR) },
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await fake.stop();
  });

  it('P5 after a restart with 10,000 pending prompts in one workspace, a new prompt appears within 5 s, a resolution goes before the refreshes, and < 1 % of calls get a 429', async () => {
    // The binding (started by the fixture) has migrated its schema; stopped, as before a restart.
    await binding.stop();

    // 10,000 prompts shown and pending, in the journal and on the fake.
    const requests = Array.from({ length: PENDING }, (_, n) =>
      requestOutput(conversation(n), `call_${n}_1`, 5),
    );
    const refs = requests.map((request) => ({
      channelId: request.conversation.channelId,
      messageId: fake.addUserMessage({
        channel: request.conversation.channelId,
        thread_ts: request.conversation.threadId,
        user: fake.identity.botUserId,
        bot_id: fake.identity.botId,
        text: 'pending prompt',
      }),
    }));
    await withClient((client) =>
      client.query(
        `INSERT INTO "${binding.database.schema}".prompts
           (session_id, call_id, prompt_ref, conversation, status, last_seq, request, message_ref)
         SELECT s, c, r, conv::jsonb, 'pending', 5, req::jsonb, ref::jsonb
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
           AS t(s, c, r, conv, req, ref)`,
        [
          requests.map((r) => r.sessionId),
          requests.map((r) => r.callId),
          requests.map((r) => promptRefOf({ sessionId: r.sessionId, callId: r.callId })),
          requests.map((r) => JSON.stringify(r.conversation)),
          requests.map((r) => JSON.stringify(r)),
          refs.map((ref) => JSON.stringify(ref)),
        ],
      ),
    );

    // The restart: the binding comes back and the session service refreshes every prompt.
    await binding.start();
    const js = jetstream(binding.nc);
    const refreshes = requests.map((r) => updateOutput(r, 'RefreshedAfterRestart', 7));
    // In small batches: the fake Slack counts a call when this process reads it, and a batch
    // of 500 publishes held this process's event loop long enough on a loaded machine to bunch
    // calls the binding had spaced evenly, so the fake answered 429 for a burst the binding
    // never sent (CI: 8 % of calls).
    for (let i = 0; i < refreshes.length; i += PUBLISH_BATCH) {
      await Promise.all(
        refreshes
          .slice(i, i + PUBLISH_BATCH)
          .map((o) =>
            js.publish(outputSubject(binding.subjects, o), encodeMessage(o), { msgID: o.id }),
          ),
      );
    }

    // Then a new prompt in the same workspace, shown ahead of the refreshes still owed.
    const fresh = requestOutput(conversation(PENDING + 1), 'call_new_1', 5);
    const publishedAt = Date.now();
    await binding.publish(fresh);
    await waitFor(
      'the new prompt posted',
      () => fake.posts({ thread_ts: fresh.conversation.threadId }).length === 1,
      { timeoutMs: 5_000 },
    );
    const postedAfterMs = Date.now() - publishedAt;
    expect(postedAfterMs).toBeLessThan(5_000);

    // A click resolving a prompt whose refresh is parked, not yet shown. Which one must be
    // read, not assumed: a refresh the binding takes while its bucket has room is shown at
    // once, and resolving the last published one raced exactly that (its refresh went out at
    // a window's start, 15 ms before its resolution arrived, which was then the second edit).
    // So once every refresh is taken (shown or parked), the newest parked one not under a
    // lease is resolved: the sweeper shows the oldest first and is thousands away from it.
    await waitFor('every refresh taken by the binding', async () => {
      const state = await binding.consumerState();
      return state.pending === 0 && state.ackPending === 0;
    });
    const parked = await withClient(async (client) => {
      const result = await client.query<{ call_id: string }>(
        `SELECT call_id FROM "${binding.database.schema}".owed_refreshes
          WHERE lease_until IS NULL OR lease_until < now()
          ORDER BY owed_at DESC LIMIT 1`,
      );
      return result.rows[0]?.call_id;
    });
    const index = requests.findIndex((request) => request.callId === parked);
    expect(index).toBeGreaterThanOrEqual(0);
    const resolved = resolvedOutput(requests[index], 8);
    const resolvedAt = Date.now();
    await binding.publish(resolved);
    await waitFor(
      'the resolution edited in',
      () => fake.edits({ ts: refs[index].messageId }).length >= 1,
      { timeoutMs: 5_000 },
    );
    const resolvedAfterMs = Date.now() - resolvedAt;
    // Before the refreshes: thousands are still owed, the resolution is not behind them.
    expect(resolvedAfterMs).toBeLessThan(5_000);
    // Resolved, and the prompt's parked refresh, overtaken, is never rendered.
    const edits = fake.edits({ ts: refs[index].messageId });
    expect(edits).toHaveLength(1);
    expect(JSON.stringify(edits[0].blocks)).not.toContain('"type":"actions"');
    console.log(
      `P5: new prompt posted ${postedAfterMs} ms after publishing, a parked prompt's ` +
        `resolution shown ${resolvedAfterMs} ms after, behind ${PENDING} refreshes`,
    );

    // Refreshes keep flowing, paced: several windows' worth of edits, hardly any 429.
    await waitFor('refreshes paced over several windows', () => fake.tally().edits >= 4 * 36, {
      timeoutMs: 20_000,
    });
    const calls = fake.tally().calls;
    expect(calls).toBeGreaterThan(4 * 36);
    expect(fake.rateLimitedCalls / calls).toBeLessThan(0.01);
  }, 120_000);
});
