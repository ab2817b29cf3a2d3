import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import {
  NATS_ROLES,
  passwordVariable,
  provision,
  roleInboxPrefix,
  type NatsRole,
} from '@tollgate/messaging';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import {
  commandSubject,
  DLQ_HEADERS,
  deriveSessionId,
  encodeMessage,
  outputSubject,
  PLATFORMS,
  bindingConsumer,
  sessionServiceConsumer,
  streamDefinitions,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SessionStore } from '../../apps/session-service/src/journal/session-store';
import { MIGRATIONS } from '../../apps/session-service/src/migrations';
import { defaultDeps } from '../../apps/session-service/src/session/domain/testing/session-given';
import { decideUserMessage } from '../../apps/session-service/src/session/domain/session.decider';
import { MIGRATIONS as SLACK_MIGRATIONS } from '../../apps/slack-binding/src/migrations';
import { driveTurn } from '../../apps/session-service/src/session/drive-turn';
import { freshConversation, userMessage } from '../support/commands';
import { createTestSchema, type TestSchema } from '../support/database';
import { requestOutput } from '../support/outputs';
import { OwnNatsServer } from '../support/own-nats-server';
import { uniqueToken } from '../support/unique';
import { tollgate } from '../support/tollgate-cli';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

function silentDataSource(schema: TestSchema, migrations: DataSource['migrations'] | unknown[]) {
  return createDataSource({
    url: schema.url,
    schema: schema.schema,
    migrations: migrations as never,
    applicationName: 'r9-test',
    poolSize: 2,
  });
}

describe('R9 — operator CLI: pending and sessions show (process)', () => {
  const sessionSchema = createTestSchema('r9ss');
  const slackSchema = createTestSchema('r9sl');
  let sessions: DataSource;
  let slack: DataSource;
  let env: Record<string, string>;
  const parked: { sessionId: string; callId: string }[] = [];

  /** A session parked on one gated write_note, decided by the session-service's own code. */
  async function park(store: SessionStore): Promise<{ sessionId: string; callId: string }> {
    const conversation = freshConversation('slack');
    const sessionId = deriveSessionId(conversation);
    await store.decide(sessionId, uniqueToken('msg'), (recorder) => {
      decideUserMessage(recorder, userMessage(conversation, '!write_note {"text":"r9"}'));
      return driveTurn(recorder, defaultDeps());
    });
    const [row] = await sessions.query<{ call_id: string }[]>(
      `SELECT call_id FROM pending_approvals WHERE session_id = $1`,
      [sessionId],
    );
    if (!row) throw new Error('the session did not park');
    return { sessionId, callId: row.call_id };
  }

  /** A prompt the slack binding's journal tracks as pending, as its output lifecycle writes it. */
  async function track(sessionId: string, callId: string): Promise<void> {
    const conversation = freshConversation('slack');
    const request = { ...requestOutput(conversation, callId, 2), sessionId };
    await slack.query(
      `INSERT INTO prompts (session_id, call_id, prompt_ref, conversation, status, last_seq, request, message_ref)
       VALUES ($1, $2, $3, $4, 'pending', 2, $5, $6)`,
      [
        sessionId,
        callId,
        uniqueToken('ref')
          .replace(/[^A-Za-z0-9]/g, '')
          .slice(0, 32),
        JSON.stringify(conversation),
        JSON.stringify(request),
        JSON.stringify({ channelId: 'C1', messageId: '1.2' }),
      ],
    );
    await slack.query(
      `INSERT INTO prompt_events (session_id, call_id, seq, type, data)
       VALUES ($1, $2, 2, 'PendingApprovalPromptTracked', '{}')`,
      [sessionId, callId],
    );
  }

  beforeAll(async () => {
    sessions = silentDataSource(sessionSchema, MIGRATIONS);
    slack = silentDataSource(slackSchema, [...SLACK_MIGRATIONS]);
    await Promise.all([sessions.initialize(), slack.initialize()]);
    await prepareSchemaAndMigrate(sessions, pino({ level: 'silent' }));
    await prepareSchemaAndMigrate(slack, pino({ level: 'silent' }));
    const store = new SessionStore(sessions, new Subjects('r9'), `outbox_${sessionSchema.schema}`);
    parked.push(await park(store), await park(store));
    // The first agrees; the second was never shown by the binding; a third prompt is live
    // in the binding for a call the session does not wait on.
    await track(parked[0].sessionId, parked[0].callId);
    const stale = deriveSessionId(freshConversation('slack'));
    parked.push({ sessionId: stale, callId: 'call_9_1' });
    await track(stale, 'call_9_1');
    env = {
      DATABASE_URL: sessionSchema.url,
      DATABASE_SCHEMA: sessionSchema.schema,
      SLACK_BINDING_SCHEMA: slackSchema.schema,
    };
  });

  afterAll(async () => {
    await sessions?.destroy();
    await slack?.destroy();
    await sessionSchema.drop();
    await slackSchema.drop();
  });

  it('R9 pending lists prompts per platform and age, flags those sessions and bindings disagree on, and reports a missing schema', async () => {
    const [agreeing, unshown, stale] = parked as [
      (typeof parked)[0],
      (typeof parked)[0],
      (typeof parked)[0],
    ];
    const result = await tollgate(
      ['pending', '--discord-schema', 'r9_no_such_schema', '--mattermost-schema=r9_none_either'],
      env,
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    const lineOf = (sessionId: string) => lines.find((l) => l.includes(`session=${sessionId}`));
    expect(lineOf(agreeing.sessionId)).toMatch(
      new RegExp(
        `^  platform=slack age=\\S+ session=${agreeing.sessionId} call=${agreeing.callId} tool=write_note in_session=pending in_binding=pending$`,
      ),
    );
    expect(lineOf(unshown.sessionId)).toMatch(
      /^! platform=slack .* in_session=pending in_binding=none \(pending in the session, but the slack binding has no prompt for it\)$/,
    );
    expect(lineOf(stale.sessionId)).toMatch(
      /^! platform=slack .* in_session=not_pending in_binding=pending \(tracked as pending by the slack binding, but not pending in the session\)$/,
    );
    expect(lines).toContain(
      `slack: 2 pending in sessions, 2 in ${slackSchema.schema}, 2 disagreeing`,
    );
    expect(lines).toContain(
      'discord: 0 pending in sessions; schema r9_no_such_schema does not exist, not compared',
    );

    const json = await tollgate(['pending', '--platform', 'slack', '--json'], env);
    expect(json.code).toBe(0);
    const objects = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sessionId: string; disagreement: string | null });
    expect(objects).toHaveLength(3);
    expect(
      objects
        .filter((o) => o.disagreement !== null)
        .map((o) => o.sessionId)
        .sort(),
    ).toEqual([unshown.sessionId, stale.sessionId].sort());

    const bad = await tollgate(['pending', '--slack-schema', 'Bad-Name'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--slack-schema');
  });

  it("R9 sessions show gives a parked session's phase and the call it waits on", async () => {
    const { sessionId, callId } = parked[0];
    const shown = await tollgate(['sessions', 'show', sessionId], env);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain(`session: ${sessionId}`);
    expect(shown.stdout).toMatch(/^phase: WaitingForApprovals \(turn started at seq \d+\)$/m);
    expect(shown.stdout).toMatch(
      new RegExp(`^ {2}call=${callId} tool=write_note requested_seq=\\d+ pending age=\\d+s$`, 'm'),
    );
    expect(shown.stdout).toContain(`pending calls: ${callId}\n`);
    expect(shown.stdout).toContain('requested by: person=U_ALICE name="Alice"');
    expect(shown.stdout).not.toContain('! pending_approvals');

    const json = JSON.parse(
      (await tollgate(['sessions', 'show', sessionId, '--json'], env)).stdout,
    );
    expect(json).toMatchObject({
      sessionId,
      phase: 'WaitingForApprovals',
      pendingCalls: [callId],
      projectedPending: [callId],
      calls: [{ callId, toolName: 'write_note', pending: true, decision: null }],
      quarantined: null,
    });

    const unknown = await tollgate(['sessions', 'show', `slack-${'0'.repeat(32)}`], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no session');
    expect((await tollgate(['sessions', 'show', 'not-an-id'], env)).code).toBe(2);
    expect((await tollgate(['sessions', 'show'], env)).code).toBe(2);
  });
});

/**
 * (process) The DLQ commands as the `operator` NATS user of `npm run nats:config`, on a
 * private nats-server that enforces it: what they do is exactly what that role allows.
 */
describe('R9 — operator CLI: dlq list, show and replay (process)', () => {
  const prefix = uniqueToken('r9').slice(0, 24);
  const subjects = new Subjects(prefix);
  const streams = streamNames(prefix);
  const passwords = new Map<NatsRole, string>();
  const clients: NatsConnection[] = [];
  let dir: string;
  let server: OwnNatsServer;
  let operator: JetStreamManager;
  let env: Record<string, string>;

  const conversation = freshConversation('slack');
  const command = userMessage(conversation, 'hello again');
  const output = requestOutput(conversation, 'call_4_1', 4);
  const seqs: Record<'command' | 'output' | 'truncated' | 'garbage', number> = {
    command: 0,
    output: 0,
    truncated: 0,
    garbage: 0,
  };

  async function as(role: NatsRole): Promise<NatsConnection> {
    const nc = (await connect({
      servers: server.url,
      user: role,
      pass: passwords.get(role)!,
      inboxPrefix: roleInboxPrefix(prefix, role),
    })) as NatsConnection;
    clients.push(nc);
    return nc;
  }

  /** A dead-lettered copy as the consumer runner writes it, by the role that would. */
  async function deadLetter(
    role: NatsRole,
    originalSubject: string,
    data: Uint8Array,
    extra: Record<string, string> = {},
  ): Promise<number> {
    const h = natsHeaders();
    h.set(DLQ_HEADERS.reason, 'post_prompt: slack_channel_not_found');
    h.set(DLQ_HEADERS.originalSubject, originalSubject);
    h.set(DLQ_HEADERS.service, role);
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    const ack = await jetstream(await as(role)).publish(subjects.dlq(role), data, {
      headers: h,
      msgID: uniqueToken('dlq'),
    });
    return ack.seq;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-r9-'));
    const configFile = join(dir, 'nats-server.conf');
    const script = join(ROOT, 'scripts', 'nats-config.mjs');
    await run(process.execPath, [script, '--prefix', prefix, '--out', configFile]);
    const { stdout } = await run(process.execPath, [script, '--passwords']);
    const serverEnv: Record<string, string> = {};
    for (const line of stdout.trim().split('\n')) {
      const [name, value] = line.split('=') as [string, string];
      serverEnv[name] = value;
    }
    for (const role of NATS_ROLES) passwords.set(role, serverEnv[passwordVariable(role)]);
    server = await OwnNatsServer.start({ configFile, env: serverEnv });

    operator = await jetstreamManager(await as('operator'));
    const definitions = streamDefinitions(prefix);
    await provision(
      operator,
      {
        streams: [definitions.commands, definitions.outputs, definitions.deadLetters],
        consumers: [
          sessionServiceConsumer(prefix),
          ...PLATFORMS.map((p) => bindingConsumer(prefix, p)),
        ],
      },
      pino({ level: 'silent' }),
    );
    seqs.command = await deadLetter(
      'session-service',
      commandSubject(subjects, command),
      encodeMessage(command),
    );
    seqs.output = await deadLetter(
      'slack-binding',
      outputSubject(subjects, output),
      encodeMessage(output),
    );
    const full = encodeMessage(userMessage(conversation, 'x'.repeat(500)));
    seqs.truncated = await deadLetter(
      'session-service',
      commandSubject(subjects, command),
      full.slice(0, 100),
      { [DLQ_HEADERS.truncatedFrom]: String(full.length) },
    );
    seqs.garbage = await deadLetter(
      'session-service',
      commandSubject(subjects, command),
      new TextEncoder().encode('{"type":"UserMessage",'),
    );
    env = {
      NATS_URL: server.url,
      NATS_USER: 'operator',
      NATS_PASSWORD: passwords.get('operator')!,
      TOLLGATE_SUBJECT_PREFIX: prefix,
    };
  });

  afterAll(async () => {
    for (const nc of clients) await nc.close().catch(() => undefined);
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** What a stream holds on one subject: its message count and the last message. */
  async function onSubject(stream: string, subject: string) {
    const info = await operator.streams.info(stream, { subjects_filter: subject });
    const last = await operator.streams.getMessage(stream, { last_by_subj: subject });
    return {
      count: info.state.subjects?.[subject] ?? 0,
      msgId: last?.header.get('Nats-Msg-Id'),
      data: last ? new TextDecoder().decode(last.data) : undefined,
    };
  }

  it('R9 dlq list shows sequence, time, service, reason and original subject; dlq show the headers and payload', async () => {
    const listed = await tollgate(['dlq', 'list'], env);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      `seq=${seqs.command} time=${lines[0].split(' ')[1].slice(5)} service=session-service subject=${commandSubject(subjects, command)} reason="post_prompt: slack_channel_not_found"`,
    );
    expect(lines[0]).toMatch(/ time=\d{4}-\d\d-\d\dT[\d:.]+Z /);
    expect(lines[2]).toContain(`seq=${seqs.truncated} `);
    expect(lines[2]).toMatch(/ truncated_from=\d+$/);
    expect(lines[4]).toBe(`4 dead letters in ${streams.deadLetters}`);
    const onlySlack = await tollgate(['dlq', 'list', '--service', 'slack-binding', '--json'], env);
    expect(JSON.parse(onlySlack.stdout)).toMatchObject({
      seq: seqs.output,
      service: 'slack-binding',
      originalSubject: outputSubject(subjects, output),
      replayed: null,
    });

    const shown = await tollgate(['dlq', 'show', String(seqs.output)], env);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain(`seq:     ${seqs.output}\n`);
    expect(shown.stdout).toContain(`${DLQ_HEADERS.service}: "slack-binding"`);
    expect(shown.stdout).toContain(
      `${DLQ_HEADERS.originalSubject}: "${outputSubject(subjects, output)}"`,
    );
    expect(shown.stdout).toContain(`"id": "${output.id}"`);
    expect(shown.stdout).toContain('replayed: no');

    const missing = await tollgate(['dlq', 'show', '999999'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no message at sequence 999999');
    expect((await tollgate(['dlq', 'show', 'abc'], env)).code).toBe(2);
  });

  it('R9 dlq replay publishes to the original subject with the original msg id once, and refuses a truncated or unparseable copy', async () => {
    const subject = commandSubject(subjects, command);
    const before = await onSubject(streams.commands, subject);
    expect(before.count).toBe(0);

    const first = await tollgate(['dlq', 'replay', String(seqs.command)], env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(`replayed to ${subject} with msg id "${command.id}"`);
    const after = await onSubject(streams.commands, subject);
    expect(after).toEqual({
      count: 1,
      msgId: command.id,
      data: new TextDecoder().decode(encodeMessage(command)),
    });

    const second = await tollgate(['dlq', 'replay', String(seqs.command)], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already replayed at');
    expect(second.stdout).toContain('nothing published');
    expect((await onSubject(streams.commands, subject)).count).toBe(1);

    const truncated = await tollgate(['dlq', 'replay', String(seqs.truncated)], env);
    expect(truncated.code).toBe(2);
    expect(truncated.stderr).toMatch(
      /refused, nothing published: truncated: the copy keeps 100 of the original's \d+ bytes/,
    );
    const garbage = await tollgate(['dlq', 'replay', String(seqs.garbage)], env);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toContain('refused, nothing published: payload does not parse');
    expect((await onSubject(streams.commands, subject)).count).toBe(1);

    // --all replays what is left (the output, under its output id) and refuses the rest again.
    const all = await tollgate(['dlq', 'replay', '--all', '--yes'], env);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(`seq=${seqs.command}: already replayed`);
    expect(all.stdout).toContain(
      `seq=${seqs.output}: replayed to ${outputSubject(subjects, output)} with msg id "${output.id}"`,
    );
    expect(all.stdout).toContain('replayed 1, already replayed 1, refused 2, failed 0 of 4');
    expect(await onSubject(streams.outputs, outputSubject(subjects, output))).toMatchObject({
      count: 1,
      msgId: output.id,
    });
    expect((await tollgate(['dlq', 'replay', '--all', '--yes'], env)).stdout).toContain(
      'replayed 0, already replayed 2, refused 2, failed 0 of 4',
    );
    expect((await onSubject(streams.commands, subject)).count).toBe(1);
    expect((await onSubject(streams.outputs, outputSubject(subjects, output))).count).toBe(1);

    const listed = await tollgate(['dlq', 'list'], env);
    expect(listed.stdout).toMatch(new RegExp(`^seq=${seqs.command} .* replayed=\\S+Z$`, 'm'));
    expect(listed.stdout).toContain(`4 dead letters in ${streams.deadLetters} (2 replayed)`);
    expect((await tollgate(['dlq', 'replay'], env)).code).toBe(2);
  });

  it('R9 the DLQ commands refuse bad credentials and an unreachable NATS with a reason, never hanging', async () => {
    const wrong = await tollgate(['dlq', 'list'], {
      ...env,
      NATS_PASSWORD: 'wrongwrongwrongwrongwrong',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('cannot reach NATS');
    expect(wrong.stderr).not.toContain('wrongwrongwrongwrongwrong');
    const half = await tollgate(['dlq', 'list'], { ...env, NATS_PASSWORD: '' });
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('NATS_PASSWORD is required');
  });
});
