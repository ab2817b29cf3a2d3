import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { type Conversation, deriveSessionId, type Output, Subjects } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { HandleCommand } from '../../../apps/session-service/src/commands/handle-command.usecase';
import { SessionScheduler } from '../../../apps/session-service/src/commands/session-scheduler';
import { PromptTimerRepository } from '../../../apps/session-service/src/journal/prompt-timer.repository';
import { SESSION_SERVICE_MIGRATIONS } from '@tollgate/session-read-model';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import { ScriptedModelClient } from '../../../apps/session-service/src/model/scripted-model.client';
import { promptTimerKey } from '../../../apps/session-service/src/session/domain/prompt-timer';
import { decidePromptTimer } from '../../../apps/session-service/src/session/domain/prompt-timer.decider';
import type { SessionDeps } from '../../../apps/session-service/src/session/domain/session-deps';
import { driveTurn } from '../../../apps/session-service/src/session/drive-turn';
import { noToolGrants } from '../../../apps/session-service/src/session/domain/tool-grants.port';
import { PromptTimerPoller } from '../../../apps/session-service/src/timers/prompt-timer.poller';
import { parseToolPolicy } from '../../../apps/session-service/src/tools/tool-policy.loader';
import { builtInTools } from '../../../apps/session-service/src/tools/tool-registry';
import { freshConversation, response, userMessage } from '../../support/commands';
import { createTestSchema } from '../../support/database';
import { waitFor } from '../../support/wait-for';

const HOUR = 3_600_000;
const LEASE_MS = 60_000;
const silent = pino({ level: 'silent' });

const deps: SessionDeps = {
  model: new ScriptedModelClient(),
  tools: builtInTools(),
  policy: parseToolPolicy(
    'tools:\n  echo: { mode: auto }\n  write_note: { mode: approval, deadline: 24h, remind: [1h, 8h] }\n',
    'policy.yaml',
    builtInTools(),
  ),
  grants: noToolGrants,
};

/** The clock every part of one "process" reads; tests move it, nothing waits for it. */
class TestClock {
  constructor(private at = Date.parse('2026-12-01T09:00:00.000Z')) {}
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}

/**
 * One session-service instance's timer machinery: its own pool, store, scheduler and poller,
 * as a process would wire them (SessionRuntime), on the test's clock.
 */
class Instance {
  readonly dataSource: DataSource;
  readonly store: SessionStore;
  readonly scheduler: SessionScheduler;
  readonly poller: PromptTimerPoller;

  constructor(
    url: string,
    schema: string,
    readonly clock: TestClock,
    repository?: (real: PromptTimerRepository) => PromptTimerRepository,
  ) {
    this.dataSource = createDataSource({
      url,
      schema,
      migrations: SESSION_SERVICE_MIGRATIONS,
      applicationName: 'timer-test',
      poolSize: 4,
    });
    this.store = new SessionStore(this.dataSource, new Subjects('timertest'), `outbox_${schema}`, {
      now: () => clock.now().toISOString(),
    });
    const handle = new HandleCommand(this.store, deps);
    this.scheduler = new SessionScheduler({
      store: this.store,
      decide: (command, options) => handle.execute(command, options),
      recover: (id) => this.store.decide(id, undefined, () => undefined),
      failInFlight: (id) => handle.failInFlight(id),
      logger: silent,
      maxTurns: 100,
      retryBaseMs: 10,
      retryMaxMs: 100,
      deadLetter: async () => {
        throw new Error('nothing here may be dead-lettered');
      },
    });
    const real = new PromptTimerRepository(this.dataSource);
    this.poller = new PromptTimerPoller({
      repository: repository ? repository(real) : real,
      fire: ({ sessionId, timer }) => {
        const key = promptTimerKey(sessionId, timer);
        return this.scheduler.submitTimer(sessionId, () =>
          this.store.decide(sessionId, key, (r) => {
            decidePromptTimer(r, timer, key);
            return driveTurn(r, deps);
          }),
        );
      },
      logger: silent,
      now: clock.now,
      intervalMs: 3_600_000,
      leaseMs: LEASE_MS,
    });
  }

  async open(): Promise<this> {
    await this.dataSource.initialize();
    return this;
  }

  async close(): Promise<void> {
    this.poller.stop();
    await this.scheduler.drain(1_000);
    await this.dataSource.destroy();
  }
}

describe('S22 — prompt timers against PostgreSQL', () => {
  const schema = createTestSchema('timers');
  const clock = new TestClock();
  let main: Instance;

  beforeAll(async () => {
    main = await new Instance(schema.url, schema.schema, clock).open();
    await prepareSchemaAndMigrate(main.dataSource, silent);
  });

  afterAll(async () => {
    await main.close();
    await schema.drop();
  });

  const timers = (sessionId: string) =>
    main.dataSource.query<{ call_id: string; kind: string; reminder: number; due_at: Date }[]>(
      `SELECT call_id, kind, reminder, due_at FROM prompt_timers WHERE session_id = $1
       ORDER BY due_at`,
      [sessionId],
    );
  const eventsOf = async (sessionId: string, type: string) =>
    (
      await main.dataSource.query<{ data: Record<string, unknown> }[]>(
        `SELECT data FROM session_events WHERE session_id = $1 AND type = $2 ORDER BY seq`,
        [sessionId, type],
      )
    ).map((r) => r.data);
  const outbox = async (sessionId: string): Promise<Output[]> =>
    (
      await main.dataSource.query<{ payload: string }[]>(
        `SELECT payload FROM outbox WHERE session_id = $1 ORDER BY position`,
        [sessionId],
      )
    ).map((r) => JSON.parse(r.payload) as Output);

  /** A fresh conversation with write_note's prompt pending, asked at the clock's now. */
  const pendingPrompt = async (): Promise<{ conversation: Conversation; sessionId: string }> => {
    const conversation = freshConversation();
    await main.scheduler.submit(userMessage(conversation, '!write_note {"text":"x"}'));
    const sessionId = deriveSessionId(conversation);
    await waitFor(
      'the prompt',
      async () => (await eventsOf(sessionId, 'ToolApprovalRequested')).length === 1,
    );
    return { conversation, sessionId };
  };

  it('S22 the timers are written with the request: two reminders and the deadline, due from the request', async () => {
    const asked = clock.now().getTime();
    const { sessionId } = await pendingPrompt();
    const rows = await timers(sessionId);
    expect(rows.map((r) => [r.call_id, r.kind, r.reminder, r.due_at.getTime() - asked])).toEqual([
      ['call_2_1', 'reminder', 1, HOUR],
      ['call_2_1', 'reminder', 2, 8 * HOUR],
      ['call_2_1', 'deadline', 0, 24 * HOUR],
    ]);
    // Nothing is due yet: a tick fires nothing.
    expect(await main.poller.tick()).toBe(0);
    expect(await eventsOf(sessionId, 'ToolApprovalReminded')).toEqual([]);
    await clearDue(main);
  });

  it('S22 nothing is scheduled for a tool without a deadline or reminders', async () => {
    const conversation = freshConversation();
    await main.scheduler.submit(userMessage(conversation, '!echo {"text":"hi"}'));
    expect(await timers(deriveSessionId(conversation))).toEqual([]);
  });

  it('S22 two pollers racing fire a due reminder once', async () => {
    const { sessionId } = await pendingPrompt();
    const other = await new Instance(schema.url, schema.schema, clock).open();
    try {
      clock.advance(HOUR + 1);
      const settled = await Promise.all([main.poller.tick(), other.poller.tick()]);
      expect(settled.reduce((a, b) => a + b, 0)).toBe(1);
      const reminded = await eventsOf(sessionId, 'ToolApprovalReminded');
      expect(reminded).toEqual([expect.objectContaining({ callId: 'call_2_1', reminder: 1 })]);
      const texts = (await outbox(sessionId)).filter((o) => o.type === 'TextOutput');
      expect(texts).toEqual([
        expect.objectContaining({
          role: 'notice',
          mention: expect.objectContaining({ id: 'U_ALICE' }),
          text: expect.stringContaining('Reminder'),
        }),
      ]);
      expect((await timers(sessionId)).map((r) => r.kind)).toEqual(['reminder', 'deadline']);
    } finally {
      await other.close();
      await clearDue(main);
    }
  });

  it('S22 a poller that dies after deciding a timer: the next claims it after the lease and it is a duplicate', async () => {
    const { sessionId } = await pendingPrompt();
    // Decides, then "crashes" before the row is deleted.
    const dying = await new Instance(schema.url, schema.schema, clock, (real) => {
      const crashing = Object.create(real) as PromptTimerRepository;
      crashing.settle = async () => {
        throw new Error('the process died here');
      };
      return crashing;
    }).open();
    try {
      clock.advance(HOUR + 1);
      expect(await dying.poller.tick()).toBe(0);
      expect(await eventsOf(sessionId, 'ToolApprovalReminded')).toHaveLength(1);
      // Under its lease, no other poller takes the row.
      expect(await main.poller.tick()).toBe(0);
      clock.advance(LEASE_MS);
      expect(await main.poller.tick()).toBe(1);
      expect(await eventsOf(sessionId, 'ToolApprovalReminded')).toHaveLength(1);
      expect((await outbox(sessionId)).filter((o) => o.type === 'TextOutput')).toHaveLength(1);
      expect((await timers(sessionId)).map((r) => r.kind)).toEqual(['reminder', 'deadline']);
    } finally {
      await dying.close();
      await clearDue(main);
    }
  });

  it('S22 timers survive a restart: a new instance fires the deadline, the prompt expires and the batch replies', async () => {
    const { sessionId } = await pendingPrompt();
    await main.close();
    clock.advance(24 * HOUR + 1);
    main = await new Instance(schema.url, schema.schema, clock).open();

    // Both reminders and the deadline are due: each fires once, in order.
    expect(await main.poller.tick()).toBe(3);
    expect(await timers(sessionId)).toEqual([]);
    expect(await eventsOf(sessionId, 'ToolApprovalReminded')).toHaveLength(2);
    expect(await eventsOf(sessionId, 'ToolApprovalResolved')).toEqual([
      expect.objectContaining({ optionKey: 'deadline_expired', approved: false }),
    ]);
    const outputs = await outbox(sessionId);
    expect(outputs.filter((o) => o.type === 'ToolInteractionUpdate')).toEqual([
      expect.objectContaining({ status: 'Expired', reason: 'deadline passed' }),
    ]);
    expect(outputs.filter((o) => o.type === 'TextOutput' && o.role === 'assistant')).toEqual([
      expect.objectContaining({ text: 'write_note: expired (deadline passed)' }),
    ]);
    expect(await eventsOf(sessionId, 'ToolExecutionStarted')).toEqual([]);
  });

  it.each([
    ['answered', (c: Conversation) => response(c, 'call_2_1', 'approve_once')],
    ['superseded', (c: Conversation) => userMessage(c, 'never mind')],
  ])('S22 a prompt %s first: its timers are cancelled and fire nothing', async (_, first) => {
    const { conversation, sessionId } = await pendingPrompt();
    await main.scheduler.submit(first(conversation));
    await waitFor('the timers cancelled', async () => (await timers(sessionId)).length === 0);
    // The timers go with the first commit; the turn goes on after it. Counted once it is over.
    await waitFor(
      'the turn to complete',
      async () => (await eventsOf(sessionId, 'TurnCompleted')).length > 0,
    );
    const before = await main.dataSource.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM session_events WHERE session_id = $1`,
      [sessionId],
    );
    clock.advance(24 * HOUR + 1);
    await main.poller.tick();
    const after = await main.dataSource.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM session_events WHERE session_id = $1`,
      [sessionId],
    );
    expect(after[0]?.n).toBe(before[0]?.n);
    expect(await eventsOf(sessionId, 'ToolApprovalReminded')).toEqual([]);
  });

  it('S22 a timer whose prompt is gone by the time it fires records nothing and is settled', async () => {
    const { conversation, sessionId } = await pendingPrompt();
    // A row left behind (as by a version that did not cancel): the decision finds no prompt.
    await main.scheduler.submit(response(conversation, 'call_2_1', 'deny'));
    await main.dataSource.query(
      `INSERT INTO prompt_timers (session_id, call_id, kind, reminder, due_at) VALUES ($1, 'call_2_1', 'reminder', 1, $2)`,
      [sessionId, clock.now().toISOString()],
    );
    expect(await main.poller.tick()).toBe(1);
    expect(await timers(sessionId)).toEqual([]);
    expect(await eventsOf(sessionId, 'ToolApprovalReminded')).toEqual([]);
  });
});

/** Fires and settles whatever is due, so one test's timers never leak into the next. */
async function clearDue(instance: Instance): Promise<void> {
  await instance.dataSource.query(`DELETE FROM prompt_timers`);
}
