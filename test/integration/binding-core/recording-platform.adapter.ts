import type {
  FoundPrompt,
  MessageRef,
  PlatformAdapter,
  PlatformFailure,
  PromptTarget,
  PromptView,
} from '@tollgate/binding-core';
import type { Conversation, Person, Platform, TextRole } from '@tollgate/protocol';

export type PlatformOperation =
  'postPrompt' | 'editPrompt' | 'sendNotice' | 'postText' | 'findPostedPrompt' | 'findPostedText';

/** A failure to inject; `afterAccepting` = the platform did it, then the call timed out. */
export type InjectedFailure = PlatformFailure & {
  readonly afterAccepting?: boolean;
  /** The platform carries the call out this long after failing it, as a late server does. */
  readonly landsAfterMs?: number;
};

/** Every effect the platform carried out, in order. Failed calls that did nothing are absent. */
export type PlatformEffect =
  | {
      readonly op: 'postPrompt';
      readonly target: PromptTarget;
      readonly view: PromptView;
      readonly ref: MessageRef;
    }
  | {
      readonly op: 'editPrompt';
      readonly target: PromptTarget;
      readonly ref: MessageRef;
      readonly view: PromptView;
    }
  | {
      readonly op: 'sendNotice';
      readonly conversation: Conversation;
      readonly to: Person;
      readonly text: string;
      readonly near?: MessageRef;
    }
  | {
      readonly op: 'postText';
      readonly conversation: Conversation;
      readonly text: string;
      readonly role: TextRole;
      readonly outputId: string;
      readonly ref: MessageRef;
    };

export class InjectedPlatformError extends Error {
  override readonly name = 'InjectedPlatformError';

  constructor(readonly failure: PlatformFailure) {
    super(`injected ${failure.kind} failure: ${failure.reason}`);
  }
}

/**
 * An in-memory chat platform: the only thing these tests fake. It records every effect, can be
 * told to fail the next calls of an operation, and finds posted prompts by their reference
 * (as a platform with message metadata would).
 */
export class RecordingPlatformAdapter implements PlatformAdapter {
  readonly effects: PlatformEffect[] = [];
  /** Every call made, failed or not. */
  readonly calls: { readonly op: PlatformOperation; readonly at: number }[] = [];
  private readonly injected = new Map<PlatformOperation, InjectedFailure[]>();
  /** Calls failed with `landsAfterMs`, until the platform has carried them out. */
  private readonly landings: Promise<unknown>[] = [];
  private nextId = 1;

  constructor(readonly platform: Platform = 'slack') {}

  failNext(op: PlatformOperation, failure: InjectedFailure, times = 1): void {
    const queue = this.injected.get(op) ?? [];
    for (let i = 0; i < times; i += 1) queue.push(failure);
    this.injected.set(op, queue);
  }

  /** Resolves once every call failed with `landsAfterMs` has been carried out. */
  async lateLandings(): Promise<void> {
    await Promise.all(this.landings);
  }

  /** Drops every failure still queued. */
  clearFailures(): void {
    this.injected.clear();
  }

  /** Answers a repeated post of a prompt with the post already made, as Mattermost does. */
  dedupesPosts = false;

  async postPrompt(target: PromptTarget, view: PromptView): Promise<FoundPrompt> {
    return this.perform('postPrompt', () => {
      const [earlier] = this.dedupesPosts ? this.postsFor(target.promptRef) : [];
      if (earlier !== undefined) {
        return {
          ...earlier.ref,
          ...(earlier.target.postNonce === undefined
            ? {}
            : { postNonce: earlier.target.postNonce }),
        };
      }
      const ref = this.newRef(target.conversation);
      this.effects.push({ op: 'postPrompt', target, view, ref });
      return ref;
    });
  }

  /** A post the platform makes from a call the binding already gave up on: no failure taken. */
  landLate(target: PromptTarget, view: PromptView): MessageRef {
    const ref = this.newRef(target.conversation);
    this.effects.push({ op: 'postPrompt', target, view, ref });
    return ref;
  }

  async editPrompt(target: PromptTarget, ref: MessageRef, view: PromptView): Promise<void> {
    return this.perform('editPrompt', () => {
      this.effects.push({ op: 'editPrompt', target, ref, view });
    });
  }

  async sendNotice(
    conversation: Conversation,
    to: Person,
    text: string,
    near?: MessageRef,
  ): Promise<void> {
    return this.perform('sendNotice', () => {
      this.effects.push({ op: 'sendNotice', conversation, to, text, ...(near ? { near } : {}) });
    });
  }

  async postText(
    conversation: Conversation,
    text: string,
    role: TextRole,
    outputId: string,
  ): Promise<MessageRef> {
    return this.perform('postText', () => {
      const ref = this.newRef(conversation);
      this.effects.push({ op: 'postText', conversation, text, role, outputId, ref });
      return ref;
    });
  }

  /** The first post of the prompt, with the nonce it was made with, as Mattermost reads back. */
  async findPostedPrompt(
    target: PromptTarget,
    _since?: Date,
    except?: MessageRef,
  ): Promise<FoundPrompt | undefined> {
    return this.perform('findPostedPrompt', () => {
      const [post] = this.postsFor(target.promptRef).filter(
        (p) => p.ref.messageId !== except?.messageId,
      );
      if (post === undefined) return undefined;
      return {
        ...post.ref,
        ...(post.target.postNonce === undefined ? {} : { postNonce: post.target.postNonce }),
      };
    });
  }

  /** The text posted with this output id, as a platform with message metadata reads back. */
  async findPostedText(
    _conversation: Conversation,
    outputId: string,
  ): Promise<MessageRef | undefined> {
    return this.perform('findPostedText', () => this.textsFor(outputId)[0]?.ref);
  }

  classifyFailure(error: unknown): PlatformFailure {
    return error instanceof InjectedPlatformError
      ? error.failure
      : { kind: 'transient', reason: 'unexpected_error' };
  }

  posts(): Extract<PlatformEffect, { op: 'postPrompt' }>[] {
    return this.effects.filter((e) => e.op === 'postPrompt');
  }

  postsFor(promptRef: string): Extract<PlatformEffect, { op: 'postPrompt' }>[] {
    return this.posts().filter((e) => e.target.promptRef === promptRef);
  }

  editsFor(promptRef: string): Extract<PlatformEffect, { op: 'editPrompt' }>[] {
    return this.effects.filter(
      (e): e is Extract<PlatformEffect, { op: 'editPrompt' }> =>
        e.op === 'editPrompt' && e.target.promptRef === promptRef,
    );
  }

  noticesTo(personId: string): Extract<PlatformEffect, { op: 'sendNotice' }>[] {
    return this.effects.filter(
      (e): e is Extract<PlatformEffect, { op: 'sendNotice' }> =>
        e.op === 'sendNotice' && e.to.id === personId,
    );
  }

  textsFor(outputId: string): Extract<PlatformEffect, { op: 'postText' }>[] {
    return this.effects.filter(
      (e): e is Extract<PlatformEffect, { op: 'postText' }> =>
        e.op === 'postText' && e.outputId === outputId,
    );
  }

  callsOf(op: PlatformOperation): number[] {
    return this.calls.filter((c) => c.op === op).map((c) => c.at);
  }

  private async perform<T>(op: PlatformOperation, effect: () => T): Promise<T> {
    this.calls.push({ op, at: Date.now() });
    const failure = this.injected.get(op)?.shift();
    if (failure === undefined) return effect();
    if (failure.afterAccepting === true) effect();
    if (failure.landsAfterMs !== undefined) {
      const ms = failure.landsAfterMs;
      this.landings.push(new Promise((resolve) => setTimeout(() => resolve(effect()), ms)));
    }
    throw new InjectedPlatformError(failure);
  }

  private newRef(conversation: Conversation): MessageRef {
    const n = this.nextId;
    this.nextId += 1;
    return {
      channelId: conversation.channelId,
      messageId: `1700000000.${String(n).padStart(6, '0')}`,
    };
  }
}
