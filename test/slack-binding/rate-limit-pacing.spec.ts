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

    // Then a new prompt in the same workspace, and a click resolving one of the old ones.
    const fresh = requestOutput(conversation(PENDING + 1), 'call_new_1', 5);
    const resolved = resolvedOutput(requests[PENDING - 1], 8);
    const publishedAt = Date.now();
    await binding.publish(fresh);
    await binding.publish(resolved);
    await waitFor(
      'the new prompt posted',
      () => fake.posts({ thread_ts: fresh.conversation.threadId }).length === 1,
      { timeoutMs: 5_000 },
    );
    const postedAfterMs = Date.now() - publishedAt;
    await waitFor(
      'the resolution edited in',
      () => fake.edits({ ts: refs[PENDING - 1].messageId }).length >= 1,
      { timeoutMs: 5_000 },
    );
    expect(postedAfterMs).toBeLessThan(5_000);
    // Resolved, not refreshed first: the refresh of the same prompt is never rendered.
    const lastEdit = fake.edits({ ts: refs[PENDING - 1].messageId });
    expect(lastEdit).toHaveLength(1);
    expect(JSON.stringify(lastEdit[0].blocks)).not.toContain('"type":"actions"');

    // Refreshes keep flowing, paced: several windows' worth of edits, hardly any 429.
    await waitFor('refreshes paced over several windows', () => fake.tally().edits >= 4 * 36, {
      timeoutMs: 20_000,
    });
    const calls = fake.tally().calls;
    expect(calls).toBeGreaterThan(4 * 36);
    expect(fake.rateLimitedCalls / calls).toBeLessThan(0.01);
  }, 120_000);
});
