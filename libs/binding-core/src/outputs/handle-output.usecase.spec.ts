import { TransientFailure } from '@tollgate/messaging';
import {
  type Conversation,
  deriveSessionId,
  outputId,
  Subjects,
  type TextOutput,
} from '@tollgate/protocol';
import pino from 'pino';
import type {
  DeliveredOutputs,
  DeliveryClaim,
  DeliveryClaimRequest,
  DeliveryLease,
} from '../journal/delivered-outputs.port';
import type { KnownSessions } from '../journal/known-sessions.port';
import type { PromptJournal } from '../journal/prompt-journal.port';
import type { MessageRef, PlatformAdapter, PlatformFailure } from '../platform-adapter.port';
import { HandleOutput } from './handle-output.usecase';

/** The delivery ledger as the repository keeps it, in memory; leases never run out here. */
class InMemoryDeliveries implements DeliveredOutputs {
  readonly rows = new Map<
    string,
    { claimId?: string; leased: boolean; delivered?: MessageRef | 'done' }
  >();
  private claims = 0;

  async claim(request: DeliveryClaimRequest): Promise<DeliveryClaim> {
    const row = this.rows.get(request.outputId) ?? { leased: false };
    this.rows.set(request.outputId, row);
    if (row.delivered !== undefined) return { kind: 'delivered' };
    if (row.leased) return { kind: 'leased', owner: 'other', retryAfterMs: 1_000 };
    const retry = row.claimId !== undefined;
    this.claims += 1;
    row.claimId = `claim-${this.claims}`;
    row.leased = true;
    return { kind: 'claimed', lease: { outputId: request.outputId, claimId: row.claimId }, retry };
  }

  async complete(lease: DeliveryLease, messageRef?: MessageRef): Promise<boolean> {
    const row = this.rows.get(lease.outputId);
    if (row?.claimId !== lease.claimId || row.delivered !== undefined) return false;
    row.delivered = messageRef ?? 'done';
    row.leased = false;
    return true;
  }

  async release(lease: DeliveryLease): Promise<void> {
    const row = this.rows.get(lease.outputId);
    if (row?.claimId === lease.claimId) row.leased = false;
  }
}

class TimedOut extends Error {}

/** A platform that can take a text and then time out, and find texts by output id. */
class TextPlatform implements PlatformAdapter {
  readonly platform = 'slack' as const;
  readonly texts: { outputId: string; ref: MessageRef }[] = [];
  readonly calls: string[] = [];
  acceptThenTimeOut = 0;
  findFails = 0;

  async postPrompt(): Promise<MessageRef> {
    throw new Error('not used');
  }
  async editPrompt(): Promise<void> {
    throw new Error('not used');
  }
  async sendNotice(): Promise<void> {
    throw new Error('not used');
  }

  async postText(
    conversation: Conversation,
    _text: string,
    _role: unknown,
    id: string,
  ): Promise<MessageRef> {
    this.calls.push('postText');
    const ref = { channelId: conversation.channelId, messageId: `m${this.texts.length + 1}` };
    this.texts.push({ outputId: id, ref });
    if (this.acceptThenTimeOut > 0) {
      this.acceptThenTimeOut -= 1;
      throw new TimedOut('timed out after the platform took it');
    }
    return ref;
  }

  async findPostedText(_conversation: Conversation, id: string): Promise<MessageRef | undefined> {
    this.calls.push('findPostedText');
    if (this.findFails > 0) {
      this.findFails -= 1;
      throw new TimedOut('read timed out');
    }
    return this.texts.find((t) => t.outputId === id)?.ref;
  }

  classifyFailure(error: unknown): PlatformFailure {
    return error instanceof TimedOut
      ? { kind: 'transient', reason: 'timeout' }
      : { kind: 'permanent', reason: String(error) };
  }
}

const conversation: Conversation = {
  platform: 'slack',
  workspaceId: 'T1',
  channelId: 'C1',
  threadId: '1700000000.000100',
};

function text(seq: number): TextOutput {
  const sessionId = deriveSessionId(conversation);
  return {
    type: 'TextOutput',
    v: 1,
    id: outputId(sessionId, seq, 0),
    sessionId,
    conversation,
    occurredAt: new Date(0).toISOString(),
    seq,
    text: `reply ${seq}`,
    role: 'assistant',
  };
}

function handler(platform: PlatformAdapter, deliveries: DeliveredOutputs): HandleOutput {
  const sessions: KnownSessions = { remember: async () => undefined, has: async () => true };
  return new HandleOutput({
    subjects: new Subjects('tollgate'),
    prompts: {} as PromptJournal,
    deliveries,
    sessions,
    adapter: platform,
    replicaId: 'replica-a',
    leaseMs: 60_000,
    reconcileForMs: 60_000,
    commands: { publish: async () => undefined },
    now: () => new Date(),
    logger: pino({ level: 'silent' }),
  });
}

describe('HandleOutput: a text whose post timed out after the platform took it', () => {
  it('B12 the retry finds the text by its output id and adopts it instead of posting again', async () => {
    const platform = new TextPlatform();
    const deliveries = new InMemoryDeliveries();
    const handle = handler(platform, deliveries);
    platform.acceptThenTimeOut = 1;
    const output = text(4);

    await expect(handle.execute(output)).rejects.toMatchObject({
      name: 'TransientFailure',
      reason: 'post_text: timeout',
    });
    const retried = await handle.execute(output);

    expect(retried).toEqual({ outcome: 'text_posted', messageRef: platform.texts[0].ref });
    expect(platform.texts).toHaveLength(1);
    expect(platform.calls).toEqual(['postText', 'findPostedText']);
    expect(deliveries.rows.get(output.id)?.delivered).toEqual(platform.texts[0].ref);
  });

  it('posts on the retry when the earlier attempt never reached the platform', async () => {
    const platform = new TextPlatform();
    const deliveries = new InMemoryDeliveries();
    const handle = handler(platform, deliveries);
    const output = text(5);
    // A claim that set out and died before the platform call (a crash).
    await deliveries.claim({ outputId: output.id, kind: 'text', owner: 'gone', leaseMs: 1 });
    deliveries.rows.get(output.id)!.leased = false;

    const handled = await handle.execute(output);

    expect(handled).toMatchObject({ outcome: 'text_posted' });
    expect(platform.calls).toEqual(['findPostedText', 'postText']);
    expect(platform.texts).toHaveLength(1);
  });

  it('a first attempt does not look: nothing can be out there yet', async () => {
    const platform = new TextPlatform();
    const handle = handler(platform, new InMemoryDeliveries());

    await handle.execute(text(6));

    expect(platform.calls).toEqual(['postText']);
  });

  it('a failed look is retried like the post, and releases the delivery', async () => {
    const platform = new TextPlatform();
    const deliveries = new InMemoryDeliveries();
    const handle = handler(platform, deliveries);
    platform.acceptThenTimeOut = 1;
    platform.findFails = 1;
    const output = text(7);

    await expect(handle.execute(output)).rejects.toBeInstanceOf(TransientFailure);
    await expect(handle.execute(output)).rejects.toMatchObject({
      reason: 'find_posted_text: timeout',
    });
    expect(deliveries.rows.get(output.id)?.leased).toBe(false);
    await handle.execute(output);

    expect(platform.texts).toHaveLength(1);
    expect(platform.calls).toEqual(['postText', 'findPostedText', 'findPostedText']);
  });
});
