import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  encodeMessage,
  outputSubject,
  type Platform,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { PlatformDriver } from '../contract/platform-driver';
import { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { connectTestNats } from '../support/nats';
import { requestOutput } from '../support/outputs';
import { OwnNatsServer } from '../support/own-nats-server';
import { waitFor } from '../support/wait-for';

/** Slack and Discord drop an answer that takes longer. */
const PLATFORM_DEADLINE_MS = 3_000;

/** What the endpoint answered, read whole so the body can be checked. */
interface Answer {
  readonly status: number;
  readonly body: string;
  readonly tookMs: number;
}

async function timed(request: () => Promise<Response>): Promise<Answer> {
  const started = Date.now();
  const response = await request();
  const body = await response.text();
  return { status: response.status, body, tookMs: Date.now() - started };
}

/** How each platform's endpoint says "taken" and "not taken, try again" (R1). */
const EXPECT: Record<
  Platform,
  {
    taken: (a: Answer) => void;
    refusedMessage: (a: Answer) => void;
    refusedClick: (a: Answer) => void;
  }
> = {
  // Slack retries an event answered non-2xx and shows a failed action on a non-2xx click.
  slack: {
    taken: (a) => expect(a.status).toBe(200),
    refusedMessage: (a) => expect(a.status).toBe(503),
    refusedClick: (a) => expect(a.status).toBe(503),
  },
  // Discord never retries: the answer itself must say so, privately, and claim nothing.
  discord: {
    taken: (a) => {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toMatchObject({
        type: 4,
        data: { content: 'Sent to the agent.' },
      });
    },
    refusedMessage: (a) => {
      expect(a.status).toBe(200);
      const reply = JSON.parse(a.body);
      expect(reply).toMatchObject({ type: 4, data: { flags: 64 } });
      expect(reply.data.content).toMatch(/could not take this message.*send it again/);
    },
    refusedClick: (a) => {
      expect(a.status).toBe(200);
      const reply = JSON.parse(a.body);
      expect(reply).toMatchObject({ type: 4, data: { flags: 64 } });
      expect(reply.data.content).toMatch(/could not take this answer.*click again/);
    },
  },
  // Mattermost retries nothing: a slash command sees the 503, a click an ephemeral text.
  mattermost: {
    taken: (a) => expect(a.status).toBe(200),
    refusedMessage: (a) => expect(a.status).toBe(503),
    refusedClick: (a) => {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body).ephemeral_text).toMatch(/try again/);
    },
  },
};

describe.each(Object.keys(CONTRACT_DRIVERS) as Platform[])(
  'R1 — %s: publish before answering',
  (platform) => {
    let nats: OwnNatsServer;
    let nc: NatsConnection;
    let driver: PlatformDriver;
    let binding: BindingFixture;

    beforeAll(async () => {
      nats = await OwnNatsServer.start();
      nc = await connectTestNats(nats.url);
      driver = CONTRACT_DRIVERS[platform]!();
      await driver.start();
      binding = await BindingFixture.create(
        `${platform}-binding`,
        `r1${platform}`,
        () => driver.bindingEnv(),
        { NATS_URL: nats.url },
      );
    });

    afterAll(async () => {
      await binding?.dispose();
      await nc?.close().catch(() => undefined);
      await nats?.dispose();
      await driver?.stop();
    });

    async function commandsStored(): Promise<number> {
      const jsm = await jetstreamManager(nc);
      return (await jsm.streams.info(streamNames(binding.prefix).commands)).state.messages;
    }

    it(`R1 ${platform}: with NATS up, the answer comes only once the command is in the stream`, async () => {
      const conversation = driver.freshConversation();
      const before = await commandsStored();

      const answer = await timed(() => driver.say(binding.url, conversation, 'hello', alice));

      // Read right after the answer, with no wait: the answer must not have run ahead of it.
      expect(await commandsStored()).toBe(before + 1);
      EXPECT[platform].taken(answer);
      expect(answer.tookMs).toBeLessThan(PLATFORM_DEADLINE_MS);
    });

    it(`R1 ${platform}: with NATS down, a message and a click get a visible "try again" within the deadline`, async () => {
      const conversation = driver.freshConversation();
      const request = requestOutput(conversation, 'call_r1', 5);
      await jetstream(nc).publish(
        outputSubject(new Subjects(binding.prefix), request),
        encodeMessage(request),
        { msgID: request.id },
      );
      const message = await waitFor('the prompt', () => driver.messagesIn(conversation)[0]);
      const approve = message.buttons.find((b) => b.style === 'primary')!;
      // The click below must reach the publish to meet the outage: a Mattermost click is first
      // checked against the journaled post, which the binding records a moment after the
      // stand-in shows it (a click before that is refused 401, whatever NATS does).
      await binding.postJournaled(message.messageId);
      await nc.close();
      await nats.stop();

      const said = await timed(() => driver.say(binding.url, conversation, 'lost?', alice));
      const clicked = await timed(() => driver.click(binding.url, message, approve, alice));

      EXPECT[platform].refusedMessage(said);
      EXPECT[platform].refusedClick(clicked);
      expect(said.tookMs).toBeLessThan(PLATFORM_DEADLINE_MS);
      expect(clicked.tookMs).toBeLessThan(PLATFORM_DEADLINE_MS);
      // Beyond the platform's own failure mark, the clicker alone is told to click again.
      await waitFor('the clicker to be told to click again', () =>
        driver
          .notices()
          .find((n) => n.userId === alice.id && /click again|try again/i.test(n.text)),
      );

      // Once NATS is back, the same message goes through: the user's retry is not lost.
      await nats.restart();
      nc = await connectTestNats(nats.url);
      const retried = await waitFor(
        'the retry to be taken',
        async () => {
          const answer = await timed(() => driver.say(binding.url, conversation, 'again', alice));
          return answer.status === 200 && !answer.body.includes('"flags":64') ? answer : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      EXPECT[platform].taken(retried);
    });
  },
);
