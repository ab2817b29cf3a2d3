import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import {
  type Command,
  commandSubject,
  encodeMessage,
  type Output,
  parseOutput,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import { waitFor } from './wait-for';

export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export async function connectTestNats(
  servers: string | string[] = TEST_NATS_URL,
): Promise<NatsConnection> {
  return (await connect({ servers, name: 'test' })) as NatsConnection;
}

/** Deletes the streams of a test's prefix; missing ones are fine. */
export async function deleteStreams(nc: NatsConnection, prefix: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const names = streamNames(prefix);
  for (const name of Object.values(names)) {
    await jsm.streams.delete(name).catch(() => false);
  }
}

/**
 * Publishes as a binding does, with `Nats-Msg-Id` = the command id; `msgId: null` publishes
 * without one, as a redelivery after JetStream's duplicate window would arrive.
 */
export async function publishCommand(
  nc: NatsConnection,
  prefix: string,
  command: Command,
  options: { msgId?: string | null } = {},
): Promise<void> {
  const msgId = options.msgId === undefined ? command.id : options.msgId;
  await jetstream(nc).publish(
    commandSubject(new Subjects(prefix), command),
    encodeMessage(command),
    msgId === null ? {} : { msgID: msgId },
  );
}

export interface SeenOutput {
  readonly subject: string;
  readonly msgId: string | undefined;
  readonly streamSeq: number;
  readonly output: Output;
}

/**
 * Reads everything in the `<PREFIX>_OUT` stream with an ordered consumer, from the first
 * message on, so a test sees outputs published before it started looking. Every payload
 * must parse as a well-formed output: a malformed one fails the test.
 */
export class OutputLog {
  readonly seen: SeenOutput[] = [];
  readonly malformed: string[] = [];
  private stopped = false;
  private running?: Promise<void>;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
  ) {}

  static async open(nc: NatsConnection, prefix: string): Promise<OutputLog> {
    const log = new OutputLog(nc, prefix);
    const stream = streamNames(prefix).outputs;
    await waitFor(`stream ${stream} to exist`, async () => {
      const jsm = await jetstreamManager(nc);
      return (await jsm.streams.info(stream)) !== undefined;
    });
    const consumer = await jetstream(nc).consumers.get(stream);
    const messages = await consumer.consume();
    log.running = (async () => {
      for await (const msg of messages) {
        if (log.stopped) break;
        log.record(msg);
      }
    })();
    log.close = async () => {
      log.stopped = true;
      await messages.close();
      await log.running;
    };
    return log;
  }

  close: () => Promise<void> = async () => undefined;

  private record(msg: JsMsg): void {
    const parsed = parseOutput(msg.data);
    if (!parsed.ok) {
      this.malformed.push(`${msg.subject}: ${parsed.reason} ${parsed.detail}`);
      return;
    }
    const msgId = msg.headers?.get('Nats-Msg-Id');
    if (msgId !== parsed.value.id) {
      this.malformed.push(
        `${msg.subject}: Nats-Msg-Id ${msgId} is not the output id ${parsed.value.id}`,
      );
      return;
    }
    this.seen.push({
      subject: msg.subject,
      msgId,
      streamSeq: msg.info.streamSequence,
      output: parsed.value,
    });
  }

  outputs(sessionId?: string): Output[] {
    return this.seen
      .map((s) => s.output)
      .filter((o) => sessionId === undefined || o.sessionId === sessionId);
  }

  /** Waits until `count` outputs of the session match, and returns them. */
  async waitForOutputs<T extends Output>(
    what: string,
    match: (output: Output) => output is T,
    {
      count = 1,
      sessionId,
      timeoutMs = 10_000,
    }: { count?: number; sessionId?: string; timeoutMs?: number } = {},
  ): Promise<T[]> {
    return waitFor(
      what,
      () => {
        if (this.malformed.length > 0)
          throw new Error(`malformed outputs: ${this.malformed.join('; ')}`);
        const found = this.outputs(sessionId).filter(match);
        return found.length >= count ? found : undefined;
      },
      { timeoutMs },
    );
  }

  get prefixName(): string {
    return this.prefix;
  }

  get connection(): NatsConnection {
    return this.nc;
  }
}

/** Narrowing helpers for `waitForOutputs`. */
export const is = {
  request:
    (callId?: string) =>
    (o: Output): o is Extract<Output, { type: 'ToolInteractionRequest' }> =>
      o.type === 'ToolInteractionRequest' && (callId === undefined || o.callId === callId),
  update:
    (status: 'RefreshedAfterRestart' | 'Abandoned' | 'Expired', callId?: string) =>
    (o: Output): o is Extract<Output, { type: 'ToolInteractionUpdate' }> =>
      o.type === 'ToolInteractionUpdate' &&
      o.status === status &&
      (callId === undefined || o.callId === callId),
  resolved:
    (callId?: string) =>
    (o: Output): o is Extract<Output, { type: 'ToolInteractionResolved' }> =>
      o.type === 'ToolInteractionResolved' && (callId === undefined || o.callId === callId),
  rejected:
    (reason?: string, callId?: string) =>
    (o: Output): o is Extract<Output, { type: 'ToolInteractionRejected' }> =>
      o.type === 'ToolInteractionRejected' &&
      (reason === undefined || o.reason === reason) &&
      (callId === undefined || o.callId === callId),
  text:
    (includes?: string) =>
    (o: Output): o is Extract<Output, { type: 'TextOutput' }> =>
      o.type === 'TextOutput' && (includes === undefined || o.text.includes(includes)),
};
