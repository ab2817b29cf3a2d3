import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  type Command,
  commandSubject,
  type Conversation,
  deriveSessionId,
  DLQ_HEADERS,
  LIMITS,
  type Output,
  outputSubject,
  type Platform,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import fc from 'fast-check';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { PlatformDriver } from '../contract/platform-driver';
import { BindingFixture } from '../support/binding.fixture';
import { freshConversation, join, response, userMessage } from '../support/commands';
import { is } from '../support/nats';
import { requestOutput, textOutput } from '../support/outputs';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';
import { junkValue } from './junk.arbitraries';
import { inParallel } from './raw-http.client';

/**
 * X6 on NATS: malformed commands on the session-service's command subjects and malformed
 * outputs on each binding's output subjects — not JSON, not an object, an unknown version,
 * missing or mistyped fields, a subject of another platform, oversized — are each
 * dead-lettered once with a reason; the service stays ready and handles a valid message next.
 */
const COUNT = Number(process.env.TOLLGATE_FUZZ_NATS_RUNS ?? 300);
const SEED = Number(process.env.TOLLGATE_FUZZ_SEED ?? 20_261_130);
const PLATFORMS: Platform[] = ['slack', 'discord', 'mattermost'];
/** Publishes and dead-letter reads outstanding at once. */
const IN_FLIGHT = 32;

interface BadMessage {
  readonly why: string;
  readonly subject: string;
  readonly payload: Uint8Array;
}

const encoder = new TextEncoder();
const json = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

/** A valid message of the protocol, to be broken one way or another. */
type Valid = Command | Output;

/** What happens to a valid message to make it invalid; never a change that could leave it valid. */
function breakages<M extends Valid>(
  valid: fc.Arbitrary<M>,
  subjectOf: (message: M) => string,
  otherPlatform: fc.Arbitrary<M>,
  hugeField: string,
  hugeLimit: number,
): fc.Arbitrary<BadMessage> {
  const onOwnSubject = (why: string, make: (m: M) => Uint8Array) =>
    valid.map((m) => ({ why, subject: subjectOf(m), payload: make(m) }));
  return fc.oneof(
    fc.tuple(valid, fc.string({ unit: 'binary', maxLength: 200 })).map(([m, noise]) => ({
      why: 'not_json',
      subject: subjectOf(m),
      payload: encoder.encode(`\u0001${noise}`),
    })),
    fc
      .tuple(
        valid,
        fc.oneof(
          fc.array(junkValue, { maxLength: 3 }),
          fc.string(),
          fc.integer(),
          fc.constant(null),
        ),
      )
      .map(([m, value]) => ({ why: 'not_an_object', subject: subjectOf(m), payload: json(value) })),
    fc
      .tuple(
        valid,
        fc.oneof(
          fc.integer().filter((v) => v !== 1),
          fc.constantFrom('1', null, 1.5, [1], {}),
        ),
      )
      .map(([m, v]) => ({
        why: 'unknown_version',
        subject: subjectOf(m),
        payload: json({ ...m, v }),
      })),
    fc.tuple(valid, fc.nat()).map(([m, at]) => {
      const keys = Object.keys(m).filter((k) => k !== 'v');
      const copy: Record<string, unknown> = { ...m };
      delete copy[keys[at % keys.length]];
      return { why: 'missing_field', subject: subjectOf(m), payload: json(copy) };
    }),
    fc.tuple(valid, fc.nat(), junkValue).map(([m, at, junk]) => {
      // Another type than the field's own: a string for an object, an array for a string…
      const keys = Object.keys(m).filter((k) => k !== 'v');
      const key = keys[at % keys.length];
      const original = (m as Record<string, unknown>)[key];
      const replacement = kindOf(junk) === kindOf(original) ? [junk] : junk;
      return {
        why: `wrong_type:${key}`,
        subject: subjectOf(m),
        payload: json({ ...m, [key]: replacement }),
      };
    }),
    fc.tuple(valid, fc.string({ minLength: 1, maxLength: 20 })).map(([m, extra]) => ({
      why: 'unknown_field',
      subject: subjectOf(m),
      payload: json({ ...m, [`x_${extra}`]: true }),
    })),
    fc.tuple(valid, fc.string({ minLength: 1, maxLength: 30 })).map(([m, type]) => ({
      why: 'unknown_type',
      subject: subjectOf(m),
      payload: json({ ...m, type: `Not${type}` }),
    })),
    fc.tuple(valid, otherPlatform).map(([mine, theirs]) => ({
      // Another platform's message on this platform's subject.
      why: 'wrong_platform',
      subject: subjectOf(mine),
      payload: json(theirs),
    })),
    fc.tuple(valid, fc.integer({ min: 1, max: 200_000 })).map(([m, extra]) => ({
      why: 'huge',
      subject: subjectOf(m),
      payload: json({ ...m, [hugeField]: 'x'.repeat(hugeLimit + extra) }),
    })),
    onOwnSubject('session_mismatch', (m) =>
      json({ ...m, sessionId: `${m.conversation.platform}-${'0'.repeat(32)}` }),
    ),
  );
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

const conversationOf = (platform: Platform) =>
  fc.integer({ min: 1, max: 2 ** 40 }).map((n): Conversation => ({
    platform,
    workspaceId: `W${n}`,
    channelId: `C${n}`,
    threadId: platform === 'discord' ? '' : `${n}.000100`,
  }));

function commandsOf(platform: Platform): fc.Arbitrary<Command> {
  return fc
    .tuple(conversationOf(platform), fc.nat(2), fc.string({ maxLength: 40 }))
    .map(([c, kind, text]) => {
      switch (kind) {
        case 0:
          return userMessage(c, `hi ${text}`);
        case 1:
          return response(c, 'call_1_1', 'approve_once');
        default:
          return join(c);
      }
    });
}

function outputsOf(platform: Platform): fc.Arbitrary<Output> {
  return fc
    .tuple(conversationOf(platform), fc.integer({ min: 1, max: 1_000 }), fc.boolean())
    .map(([c, seq, request]) =>
      request ? requestOutput(c, `call_${seq}_1`, seq) : textOutput(c, seq, 'hello'),
    );
}

/**
 * Publishes every message with its own Nats-Msg-Id, so none is dropped as a duplicate.
 * IN_FLIGHT at a time, not one round trip after another: the order does not matter (each
 * message is checked for by content), and 300 sequential acks were most of the spec's time
 * on a loaded machine.
 */
async function publishAll(nc: NatsConnection, messages: BadMessage[]): Promise<void> {
  const js = jetstream(nc);
  const run = uniqueToken('bad');
  await inParallel(messages, IN_FLIGHT, (message, index) =>
    js.publish(message.subject, message.payload, { msgID: `${run}-${index}` }),
  );
}

/**
 * Waits for exactly one dead-lettered copy of each message, each with a reason and its
 * original subject, and for the consumer to hold nothing more.
 */
async function expectEachDeadLetteredOnce(
  nc: NatsConnection,
  prefix: string,
  service: string,
  messages: BadMessage[],
  consumer: { stream: string; durable: string },
): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const dlq = streamNames(prefix).deadLetters;
  await waitFor(
    `${messages.length} dead letters in ${dlq}`,
    async () => {
      const { state } = await jsm.streams.info(dlq);
      if (state.messages > messages.length) throw new Error(`${state.messages} dead letters`);
      return state.messages === messages.length;
    },
    { timeoutMs: 60_000 },
  );
  const expected = new Map<string, number>();
  for (const message of messages) {
    const key = `${message.subject}\n${Buffer.from(message.payload).toString('base64')}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const reasons: string[] = [];
  const { state } = await jsm.streams.info(dlq);
  const seqs = Array.from(
    { length: state.last_seq - state.first_seq + 1 },
    (_, index) => state.first_seq + index,
  );
  // Fetched IN_FLIGHT at a time, then checked in sequence order as before.
  const copies = await inParallel(seqs, IN_FLIGHT, (seq) => jsm.streams.getMessage(dlq, { seq }));
  for (const copy of copies) {
    expect(copy?.subject).toBe(new Subjects(prefix).dlq(service));
    const reason = copy?.header.get(DLQ_HEADERS.reason) ?? '';
    expect(reason).not.toBe('');
    reasons.push(reason);
    const key = `${copy?.header.get(DLQ_HEADERS.originalSubject)}\n${Buffer.from(copy?.data ?? []).toString('base64')}`;
    const left = expected.get(key) ?? 0;
    expect({ copyOf: key.slice(0, 200), known: left > 0 }).toEqual({
      copyOf: key.slice(0, 200),
      known: true,
    });
    expected.set(key, left - 1);
  }
  const info = await jsm.consumers.info(consumer.stream, consumer.durable);
  expect({ ackPending: info.num_ack_pending, pending: info.num_pending }).toEqual({
    ackPending: 0,
    pending: 0,
  });
  return reasons;
}

function reasonHistogram(reasons: string[]): Record<string, number> {
  const histogram: Record<string, number> = {};
  for (const reason of reasons) {
    const code = reason.replace(/^invalid_payload: /, '').split(':')[0];
    histogram[code] = (histogram[code] ?? 0) + 1;
  }
  return histogram;
}

describe('X6 — hostile commands on NATS', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('fzcmd');
  });

  afterAll(async () => {
    await service?.dispose();
  });

  it(`X6 the session-service dead-letters ${COUNT} malformed commands once each with a reason, stays ready and answers a valid one`, async () => {
    const subjects = new Subjects(service.prefix);
    const perPlatform = PLATFORMS.map((platform, index) =>
      breakages<Command>(
        commandsOf(platform),
        (command) => commandSubject(subjects, command),
        commandsOf(PLATFORMS[(index + 1) % PLATFORMS.length]),
        'id',
        LIMITS.commandId,
      ),
    );
    const messages = fc.sample(fc.oneof(...perPlatform), { seed: SEED, numRuns: COUNT });
    await publishAll(service.nc, messages);
    const reasons = await expectEachDeadLetteredOnce(
      service.nc,
      service.prefix,
      'session-service',
      messages,
      {
        stream: streamNames(service.prefix).commands,
        durable: 'session-service',
      },
    );
    console.log(
      `X6 session-service: ${messages.length} dead-lettered, reasons ${JSON.stringify(reasonHistogram(reasons))}`,
    );

    expect((await fetch(service.process!.url('/health/ready'))).status).toBe(200);
    const conversation = freshConversation('mattermost');
    await service.send(userMessage(conversation, 'still there?'));
    await service.outputs.waitForOutputs(
      'the answer after the malformed commands',
      is.text('You said: still there?'),
      {
        sessionId: deriveSessionId(conversation),
      },
    );
  });
});

describe.each(PLATFORMS)('X6 — hostile outputs on NATS for the %s binding', (platform) => {
  let driver: PlatformDriver;
  let binding: BindingFixture;

  beforeAll(async () => {
    driver = CONTRACT_DRIVERS[platform]!();
    await driver.start();
    binding = await BindingFixture.create(`${platform}-binding`, `fzout${platform}`, () =>
      driver.bindingEnv(),
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver?.stop();
  });

  it(`X6 the ${platform} binding dead-letters ${COUNT} malformed outputs once each with a reason, stays ready and posts a valid one`, async () => {
    const subjects = binding.subjects;
    const other = PLATFORMS[(PLATFORMS.indexOf(platform) + 1) % PLATFORMS.length];
    const messages = fc.sample(
      breakages<Output>(
        outputsOf(platform),
        (output) => outputSubject(subjects, output),
        outputsOf(other),
        'displayText',
        LIMITS.displayText,
      ),
      { seed: SEED, numRuns: COUNT },
    );
    await publishAll(binding.nc, messages);
    const reasons = await expectEachDeadLetteredOnce(
      binding.nc,
      binding.prefix,
      `${platform}-binding`,
      messages,
      {
        stream: streamNames(binding.prefix).outputs,
        durable: `${platform}-binding`,
      },
    );
    console.log(
      `X6 ${platform}-binding: ${messages.length} dead-lettered, reasons ${JSON.stringify(reasonHistogram(reasons))}`,
    );

    expect(binding.process!.child.exitCode).toBeNull();
    expect((await fetch(`${binding.url}/health/ready`)).status).toBe(200);
    const conversation = driver.freshConversation();
    await binding.publish(textOutput(conversation, 1, 'after the storm'));
    await waitFor('the valid output posted after the malformed ones', () =>
      driver.messagesIn(conversation).some((m) => m.text.includes('after the storm')),
    );
  });
});
