import { jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, DLQ_HEADERS, streamNames } from '@tollgate/protocol';
import { Client } from 'pg';
import { type ChatCompletionRequestBody, OpenAiApiFake } from '@tollgate/platform-standins';
import { freshConversation, response, userMessage } from '../support/commands';
import { TEST_DATABASE_URL, withClient } from '../support/database';
import { ModelGate } from '../support/model-gate';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/** (process) One broken session, a model outage or a failed commit stops nothing else. */
describe('S18 — a session that cannot be replayed is quarantined (process)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('s18q');
  });

  afterAll(async () => {
    await service?.dispose();
  });

  async function park() {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!write_note {"text":"x"}'));
    await service.outputs.waitForOutputs('the prompt', is.request('call_2_1'), { sessionId });
    return { conversation, sessionId };
  }

  it('S18 a poisoned journal is quarantined at start (logged, counted, prompts expired with a notice); the others recover and the service is ready', async () => {
    const poisoned = await park();
    const healthy = await park();
    // A turn end while parked: no version of the approval turn can follow this journal.
    await withClient((client) =>
      client.query(
        `INSERT INTO "${service.database.schema}".session_events (session_id, seq, type, data, occurred_at)
         SELECT session_id, max(seq) + 1, 'TurnCompleted', '{"type":"TurnCompleted","reply":"?"}', now()
         FROM "${service.database.schema}".session_events WHERE session_id = $1 GROUP BY session_id`,
        [poisoned.sessionId],
      ),
    );

    await service.restart();
    await service.outputs.waitForOutputs(
      'the healthy prompt refreshed',
      is.update('RefreshedAfterRestart', 'call_2_1'),
      { sessionId: healthy.sessionId },
    );
    await service.outputs.waitForOutputs(
      'the poisoned prompt expired',
      is.update('Expired', 'call_2_1'),
      {
        sessionId: poisoned.sessionId,
      },
    );
    const [notice] = await service.outputs.waitForOutputs(
      'the notice',
      is.text('could not be restored'),
      {
        sessionId: poisoned.sessionId,
      },
    );
    expect(notice.role).toBe('notice');
    expect(
      service.outputs
        .outputs(poisoned.sessionId)
        .filter((o) => o.type === 'ToolInteractionUpdate' && o.status === 'RefreshedAfterRestart'),
    ).toEqual([]);
    const log = service.process!.output();
    expect(log).toMatch(
      new RegExp(`"sessionId":"${poisoned.sessionId}"[^\\n]*session quarantined`),
    );
    const metrics = await (await fetch(service.process!.url('/metrics'))).text();
    expect(metrics).toMatch(/^tollgate_sessions_quarantined_total 1$/m);

    // It takes no more commands: a click is dead-lettered with the reason; the healthy one works.
    await service.send(response(poisoned.conversation, 'call_2_1', 'approve_once'));
    const jsm = await jetstreamManager(service.nc);
    const dlq = streamNames(service.prefix).deadLetters;
    const copy = await waitFor('the dead-lettered click', async () => {
      const info = await jsm.streams.info(dlq);
      return info.state.messages > 0
        ? jsm.streams.getMessage(dlq, { seq: info.state.first_seq })
        : undefined;
    });
    expect(copy?.header.get(DLQ_HEADERS.reason)).toMatch(/^session_quarantined/);
    await service.send(response(healthy.conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs('the healthy reply', is.text('write_note: 1'), {
      sessionId: healthy.sessionId,
    });
    const journal = await service.journal(poisoned.sessionId);
    expect(journal.at(-1)?.type).toBe('SessionQuarantined');
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toEqual([]);
  });
  it('S18 a turn left in flight whose recovery throws is quarantined; the service stays up and takes commands', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.stop();
    await service.start({ TOLLGATE_FAILPOINT: 'model-calling' });
    await service.send(userMessage(conversation, 'hello'));
    const exit = await service.process!.exited();
    expect(exit.signal).toBe('SIGKILL');
    service.process = undefined;
    // An answer to a call nobody asked: the running turn cannot follow it.
    await withClient((client) =>
      client.query(
        `INSERT INTO "${service.database.schema}".session_events (session_id, seq, type, data, occurred_at)
         VALUES ($1, 3, 'ToolApprovalResolved', $2, now())`,
        [
          sessionId,
          JSON.stringify({
            type: 'ToolApprovalResolved',
            commandId: 'c',
            callId: 'nobody_asked',
            optionKey: 'approve_once',
            label: 'Approve',
            approved: true,
            resolvedBy: { id: 'U1' },
          }),
        ],
      ),
    );

    await service.start();
    await service.outputs.waitForOutputs('the notice', is.text('could not be restored'), {
      sessionId,
    });
    const other = freshConversation();
    await service.send(userMessage(other, 'still there?'));
    await service.outputs.waitForOutputs(
      'another session answered',
      is.text('You said: still there?'),
      {
        sessionId: deriveSessionId(other),
      },
    );
    expect(service.process!.output()).toContain(sessionId);
  });
});

describe('S18 — model outage and failed commits (process)', () => {
  const gates = new Map<string, ModelGate>();
  let outage = false;
  let api: OpenAiApiFake;
  let service: SessionServiceFixture;

  function answer(request: ChatCompletionRequestBody) {
    if (outage) return { status: 503, body: '{"error":{"message":"down for maintenance"}}' };
    const text = String(request.messages.at(-1)?.content);
    const gate = gates.get(text);
    const reply = { content: `answer to ${text}` };
    return gate ? { gate: gate.closed, reply } : reply;
  }

  beforeAll(async () => {
    api = await OpenAiApiFake.start({ fallback: answer });
    service = await SessionServiceFixture.create('s18m', {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: api.baseUrl,
      MODEL: 'gpt-fake',
      MODEL_RETRY_BASE_MS: '100',
      MODEL_RETRY_MAX_MS: '300',
      TOLLGATE_ACK_WAIT_MS: '4000',
      DATABASE_LOCK_TIMEOUT_MS: '200',
    });
  });

  afterAll(async () => {
    outage = false;
    for (const gate of gates.values()) gate.open();
    await service?.dispose();
    await api?.stop();
  });

  const asked = (text: string) =>
    api.requests.filter((r) => r.body?.messages.at(-1)?.content === text).length;

  it('S18 a model outage at start: the service is ready, the turn left in flight retries with backoff and answers once the model is back', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.stop();
    await service.start({ TOLLGATE_FAILPOINT: 'model-calling' });
    await service.send(userMessage(conversation, 'during the outage'));
    const exit = await service.process!.exited();
    expect(exit.signal).toBe('SIGKILL');
    service.process = undefined;

    outage = true;
    await service.start();
    await waitFor('the turn retrying against the outage', () => asked('during the outage') >= 3);
    const ready = await fetch(service.process!.url('/health/ready'));
    expect(ready.status).toBe(200);
    outage = false;

    await service.outputs.waitForOutputs('the reply', is.text('answer to during the outage'), {
      sessionId,
    });
    const journal = await service.journal(sessionId);
    expect(journal.map((e) => e.type)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
  });

  it('S18 a decision that fails after a partial commit is recovered within TOLLGATE_ACK_WAIT_MS, without a restart', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const gate = new ModelGate();
    gates.set('locked out', gate);
    const pid = service.process!.child.pid;
    await service.send(userMessage(conversation, 'locked out'));
    await waitFor('the model asked', () => asked('locked out') === 1);

    // The turn's result cannot be committed while this lock is held (lock_timeout 200 ms).
    const blocker = new Client({ connectionString: TEST_DATABASE_URL, application_name: 'test' });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `LOCK TABLE "${service.database.schema}".session_state IN ACCESS EXCLUSIVE MODE`,
      );
      gate.open();
      await waitFor('the commit to fail', () =>
        service.process!.output().includes('failed after a partial commit'),
      );
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    const released = Date.now();
    await service.outputs.waitForOutputs('the reply', is.text('answer to locked out'), {
      sessionId,
      timeoutMs: 4_000,
    });
    expect(Date.now() - released).toBeLessThan(4_000);
    expect(service.process!.child.pid).toBe(pid);
    expect(service.process!.child.exitCode).toBeNull();
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'TurnCompleted')).toHaveLength(1);
    expect(
      service.outputs
        .outputs(sessionId)
        .filter((o) => o.type === 'TextOutput' && o.role === 'assistant'),
    ).toHaveLength(1);
    // Recovery asked the model again: the first answer was never committed.
    expect(asked('locked out')).toBe(2);
  });
});
