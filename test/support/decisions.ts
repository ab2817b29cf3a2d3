import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  type ApprovalDecided,
  parseApprovalDecided,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import { waitFor } from './wait-for';

export interface SeenDecision {
  readonly subject: string;
  readonly msgId: string | undefined;
  readonly decided: ApprovalDecided;
}

/**
 * Everything in the `<PREFIX>_DECISION` stream, read from the first message with an ordered
 * consumer, as approval-api reads it. A payload that does not parse, a subject that is not the
 * event's own, or a `Nats-Msg-Id` that is not its id fails the test.
 */
export class DecisionLog {
  readonly seen: SeenDecision[] = [];
  readonly malformed: string[] = [];
  close: () => Promise<void> = async () => undefined;

  static async open(nc: NatsConnection, prefix: string): Promise<DecisionLog> {
    const log = new DecisionLog();
    const stream = streamNames(prefix).decisions;
    await waitFor(`stream ${stream} to exist`, async () => {
      const jsm = await jetstreamManager(nc);
      return (await jsm.streams.info(stream)) !== undefined;
    });
    const messages = await (await jetstream(nc).consumers.get(stream)).consume();
    const subjects = new Subjects(prefix);
    let stopped = false;
    const running = (async () => {
      for await (const msg of messages) {
        if (stopped) break;
        log.record(subjects, msg);
      }
    })();
    log.close = async () => {
      stopped = true;
      await messages.close();
      await running;
    };
    return log;
  }

  private record(subjects: Subjects, msg: JsMsg): void {
    const parsed = parseApprovalDecided(msg.data);
    if (!parsed.ok) {
      this.malformed.push(`${msg.subject}: ${parsed.reason} ${parsed.detail}`);
      return;
    }
    const decided = parsed.value;
    const msgId = msg.headers?.get('Nats-Msg-Id');
    if (msg.subject !== subjects.decision(decided.clientId, decided.approvalId)) {
      this.malformed.push(`${msg.subject}: not the subject of ${decided.id}`);
    } else if (msgId !== decided.id) {
      this.malformed.push(`${msg.subject}: Nats-Msg-Id ${msgId} is not ${decided.id}`);
    } else {
      this.seen.push({ subject: msg.subject, msgId, decided });
    }
  }

  of(approvalId: string): ApprovalDecided[] {
    return this.seen.filter((s) => s.decided.approvalId === approvalId).map((s) => s.decided);
  }

  /** Waits for the approval's decision and returns it. */
  async waitFor(approvalId: string, timeoutMs = 10_000): Promise<ApprovalDecided> {
    return waitFor(
      `the decision of ${approvalId}`,
      () => {
        if (this.malformed.length > 0) throw new Error(`malformed: ${this.malformed.join('; ')}`);
        return this.of(approvalId)[0];
      },
      { timeoutMs },
    );
  }
}
