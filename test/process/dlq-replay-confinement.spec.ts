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
import {
  bindingConsumer,
  commandSubject,
  DLQ_HEADERS,
  encodeMessage,
  outputSubject,
  PLATFORMS,
  sessionServiceConsumer,
  streamDefinitions,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import pino from 'pino';
import { freshConversation, userMessage } from '../support/commands';
import { requestOutput } from '../support/outputs';
import { OwnNatsServer } from '../support/own-nats-server';
import { uniqueToken } from '../support/unique';
import { tollgate } from '../support/tollgate-cli';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/**
 * X12 (process): the laundering attack of issue 19 against a private nats-server running the
 * generated configuration. A compromised slack-binding writes, on the only DLQ subject it may,
 * copies whose `Tollgate-Original-Subject` names Discord commands and Mattermost outputs; the
 * operator's routine `dlq replay --all` must publish none of them.
 */
describe('X12 — DLQ replay confined', () => {
  const prefix = uniqueToken('x12').slice(0, 20);
  const subjects = new Subjects(prefix);
  const streams = streamNames(prefix);
  const passwords = new Map<NatsRole, string>();
  const clients: NatsConnection[] = [];
  let dir: string;
  let server: OwnNatsServer;
  let operator: JetStreamManager;
  let env: Record<string, string>;

  const slack = freshConversation('slack');
  const discord = freshConversation('discord');
  const mattermost = freshConversation('mattermost');
  const ownOutput = requestOutput(slack, 'call_1_1', 1);
  const plantedCommand = userMessage(discord, '!write_note {"text":"laundered"}');
  const plantedOutput = requestOutput(mattermost, 'call_2_1', 1);
  const seqs = { own: 0, command: 0, output: 0, disguised: 0 };

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

  /** What the compromised binding writes: any headers it likes, on its own DLQ subject. */
  async function planted(
    originalSubject: string,
    data: Uint8Array,
    claimedService = 'slack-binding',
  ): Promise<number> {
    const h = natsHeaders();
    h.set(DLQ_HEADERS.reason, 'post_prompt: slack_channel_not_found');
    h.set(DLQ_HEADERS.originalSubject, originalSubject);
    h.set(DLQ_HEADERS.service, claimedService);
    const ack = await jetstream(await as('slack-binding')).publish(
      subjects.dlq('slack-binding'),
      data,
      { headers: h, msgID: uniqueToken('dlq') },
    );
    return ack.seq;
  }

  async function countOn(stream: string, subject: string): Promise<number> {
    const info = await operator.streams.info(stream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-x12-'));
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
    seqs.own = await planted(outputSubject(subjects, ownOutput), encodeMessage(ownOutput));
    seqs.command = await planted(
      commandSubject(subjects, plantedCommand),
      encodeMessage(plantedCommand),
    );
    seqs.output = await planted(
      outputSubject(subjects, plantedOutput),
      encodeMessage(plantedOutput),
    );
    // Claims to be the session-service's copy of a command; it is stored on slack's subject.
    seqs.disguised = await planted(
      commandSubject(subjects, plantedCommand),
      encodeMessage(plantedCommand),
      'session-service',
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
    await server?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('X12 a binding cannot write a replay marker, and a marker-shaped copy on its own DLQ subject marks nothing', async () => {
    const nc = await as('slack-binding');
    const marker = subjects.dlqReplayMarker(seqs.command);
    const record = {
      dlqSeq: seqs.own,
      replayedAt: new Date().toISOString(),
      subject: outputSubject(subjects, ownOutput),
      msgId: ownOutput.id,
      stream: streams.outputs,
      streamSeq: 1,
    };
    await expect(
      jetstream(nc).publish(marker, new TextEncoder().encode(JSON.stringify(record))),
    ).rejects.toThrow(`Permissions Violation for Publish to "${marker}"`);
    // The same record on its own DLQ subject is a dead letter like any other, not a marker.
    await jetstream(nc).publish(
      subjects.dlq('slack-binding'),
      new TextEncoder().encode(JSON.stringify(record)),
    );
    const listed = await tollgate(['dlq', 'list'], env);
    const line = listed.stdout.split('\n').find((l) => l.startsWith(`seq=${seqs.own} `));
    expect(line).toBeDefined();
    expect(line).not.toContain('replayed=');
    expect(listed.stdout).toContain(`5 dead letters in ${streams.deadLetters}\n`);
  });

  it('X12 replay --all without a terminal and without --yes shows counts and refusals and publishes nothing', async () => {
    const all = await tollgate(['dlq', 'replay', '--all'], env);
    expect(all.code).toBe(2);
    expect(all.stdout).toContain(`would replay 1 of 5 in ${streams.deadLetters}:`);
    expect(all.stdout).toContain(`  1 to ${prefix}.out.slack.*.call.*.request`);
    expect(all.stdout).toMatch(
      new RegExp(
        `refused seq=${seqs.command}: original subject .* is not what slack-binding consumes`,
      ),
    );
    expect(all.stdout).toMatch(new RegExp(`refused seq=${seqs.output}: original subject`));
    expect(all.stdout).toMatch(
      new RegExp(
        `refused seq=${seqs.disguised}: Tollgate-Service says "session-service" but slack-binding wrote it`,
      ),
    );
    expect(all.stderr).toContain('pass --yes');
    expect(await countOn(streams.outputs, outputSubject(subjects, ownOutput))).toBe(0);
    expect(await countOn(streams.commands, commandSubject(subjects, plantedCommand))).toBe(0);
  });

  it("X12 replay --all --yes publishes only the binding's own platform's output; the planted command and output are refused with the reason", async () => {
    const single = await tollgate(['dlq', 'replay', String(seqs.command)], env);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain(
      `seq=${seqs.command}: refused, nothing published: original subject`,
    );

    const all = await tollgate(['dlq', 'replay', '--all', '--yes'], env);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(
      `seq=${seqs.own}: replayed to ${outputSubject(subjects, ownOutput)}`,
    );
    expect(all.stdout).toContain('replayed 1, already replayed 0, refused 4, failed 0 of 5');
    expect(await countOn(streams.outputs, outputSubject(subjects, ownOutput))).toBe(1);
    expect(await countOn(streams.commands, commandSubject(subjects, plantedCommand))).toBe(0);
    expect(await countOn(streams.outputs, outputSubject(subjects, plantedOutput))).toBe(0);
    const commands = await operator.streams.info(streams.commands);
    expect(commands.state.messages).toBe(0);
  });
});
