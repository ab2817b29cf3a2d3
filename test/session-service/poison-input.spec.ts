import { jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, DLQ_HEADERS, streamNames } from '@tollgate/protocol';
import { freshConversation, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/**
 * Poison input at the session-service: text PostgreSQL cannot store as is, statements it
 * refuses every time, decisions that fail half-way, and ids another platform claims first.
 */
describe('X8 — poison input cannot stall the session service', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('poison');
    // A real refusal by PostgreSQL (SQLSTATE 22023, class 22: data exception) for marked
    // content, so a test can place it before or after a decision's first commit.
    await withClient((client) =>
      client.query(`
        CREATE FUNCTION "${service.database.schema}".refuse_marked() RETURNS trigger AS $$
        BEGIN
          IF NEW.data::text LIKE '%refuse-this-write%'
             OR (NEW.type = 'ToolCallRecorded' AND NEW.data->>'result' = 'refuse-this-result') THEN
            RAISE EXCEPTION 'refused by the test trigger' USING ERRCODE = '22023';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER refuse_marked BEFORE INSERT ON "${service.database.schema}".session_events
          FOR EACH ROW EXECUTE FUNCTION "${service.database.schema}".refuse_marked();`),
    );
  });

  afterAll(async () => {
    await service.dispose();
  });

  async function deadLetters(): Promise<{ reason: string; subject: string }[]> {
    const jsm = await jetstreamManager(service.nc);
    const stream = streamNames(service.prefix).deadLetters;
    const info = await jsm.streams.info(stream);
    const found: { reason: string; subject: string }[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
      const stored = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (!stored) continue;
      found.push({
        reason: stored.header.get(DLQ_HEADERS.reason),
        subject: stored.header.get(DLQ_HEADERS.originalSubject),
      });
    }
    return found;
  }

  it('X8 a NUL in tool arguments: the tool gets it, the reply carries it, and the thread keeps answering', async () => {
    const conversation = freshConversation('mattermost');
    const sessionId = deriveSessionId(conversation);
    // The JSON escape `\u0000` in the chat text becomes a real U+0000 in the echo's argument.
    await service.send(userMessage(conversation, '!echo {"text":"a\\u0000b"}'));
    const [reply] = await service.outputs.waitForOutputs('the echo reply', is.text('echo: '), {
      sessionId,
    });
    expect(reply?.text).toBe('echo: a\u0000b');

    await service.send(userMessage(conversation, 'still there?'));
    await service.outputs.waitForOutputs('the next reply', is.text('You said: still there?'), {
      sessionId,
    });
    const journal = await service.journal(sessionId);
    const recorded = journal.find((row) => row.type === 'ToolCallRecorded');
    // Stored escaped (jsonb refuses \u0000), as the documented rule says.
    expect(recorded?.data).toMatchObject({ $escaped: 1, result: 'a%00b' });
  });

  it('X8 a NUL and a lone surrogate in message text and sender name are answered, not retried', async () => {
    const conversation = freshConversation('mattermost');
    const sessionId = deriveSessionId(conversation);
    const text = 'hi\u0000<1> \ud800 100%';
    await service.send(
      userMessage(conversation, text, { sender: { id: 'U_NUL', displayName: 'N\u0000L' } }),
    );
    const [reply] = await service.outputs.waitForOutputs('the reply', is.text('You said: '), {
      sessionId,
    });
    expect(reply?.text).toBe(`You said: ${text}`);
    expect((await deadLetters()).filter((d) => d.subject.includes(sessionId))).toEqual([]);
  });

  it('X8 a statement PostgreSQL refuses is dead-lettered once with its SQLSTATE, and the thread goes on', async () => {
    const conversation = freshConversation('slack');
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, 'please refuse-this-write'));
    const [letter] = await waitFor('the dead letter', async () => {
      const found = (await deadLetters()).filter((d) => d.subject.includes(sessionId));
      return found.length > 0 ? found : undefined;
    });
    expect(letter?.reason).toMatch(/^database_permanent: 22023 .*refused by the test trigger/);

    await service.send(userMessage(conversation, 'and now?'));
    await service.outputs.waitForOutputs('the next reply', is.text('You said: and now?'), {
      sessionId,
    });
    // Dead-lettered once: a retried message would have been copied again (the copy is keyed
    // by stream position, so count the original's deliveries through the journal instead).
    expect((await deadLetters()).filter((d) => d.subject.includes(sessionId))).toHaveLength(1);
    expect((await service.journal(sessionId)).map((row) => row.type)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
  });

  it('X8 a decision that fails after its checkpoint committed settles the turn; later messages are answered', async () => {
    const conversation = freshConversation('slack');
    const sessionId = deriveSessionId(conversation);
    // ToolExecutionStarted commits at the checkpoint; the echo's result is then refused.
    await service.send(userMessage(conversation, '!echo {"text":"refuse-this-result"}'));
    const [notice] = await service.outputs.waitForOutputs(
      'the failure notice',
      is.text('The turn failed'),
      { sessionId },
    );
    expect(notice?.text).toContain('echo may have completed');
    const [letter] = await waitFor('the dead letter', async () => {
      const found = (await deadLetters()).filter((d) => d.subject.includes(sessionId));
      return found.length > 0 ? found : undefined;
    });
    expect(letter?.reason).toMatch(
      /^decision_failed_after_commit \(turn_settled\): database_permanent: 22023 /,
    );

    await service.send(userMessage(conversation, 'are you stuck?'));
    await service.outputs.waitForOutputs('the next reply', is.text('You said: are you stuck?'), {
      sessionId,
    });
    const types = (await service.journal(sessionId)).map((row) => row.type);
    expect(types).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'ToolBatchStarted',
      'ToolExecutionStarted',
      'ToolBatchAbandoned',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
  });

  it('X8 a Mattermost command with a Slack command id does not silence the Slack message', async () => {
    const slack = freshConversation('slack');
    const mattermost = freshConversation('mattermost');
    const id = `slack:T1:${slack.channelId}:${slack.threadId}`;
    await service.send(userMessage(mattermost, 'claimed first', { id }));
    await service.outputs.waitForOutputs('the Mattermost reply', is.text('You said: claimed'), {
      sessionId: deriveSessionId(mattermost),
    });
    // JetStream's duplicate window (keyed by the bare id, docs/protocol.md §1) would drop this copy
    // before the ledger saw it; bindings keep their ids apart (Mattermost's carry
    // `mattermost:`). Published without the header, as it would arrive after that window, it
    // shows the ledger itself keeps platforms apart.
    await service.send(userMessage(slack, 'the real one', { id }), { msgId: null });
    await service.outputs.waitForOutputs('the Slack reply', is.text('You said: the real one'), {
      sessionId: deriveSessionId(slack),
    });
  });
});
