import { InvalidPayload, PermanentFailure, type TriageVerdict } from '@tollgate/messaging';
import {
  parseOutputForSubject,
  type Output,
  type Subjects,
  type ToolInteractionUpdate,
} from '@tollgate/protocol';
import type { Logger } from 'pino';
import type { DeliveredOutputs } from '../journal/delivered-outputs.port';
import type { CommandPublisher } from '../inbound/command-publisher.port';
import type { KnownSessions } from '../journal/known-sessions.port';
import type { OwedRefreshes } from '../journal/owed-refreshes.port';
import type { PromptJournal } from '../journal/prompt-journal.port';
import { priorityOf } from '../pacing/output-priority';
import type { RateLimitPacer } from '../pacing/rate-limit-pacer';
import type { PlatformAdapter } from '../platform-adapter.port';
import type { OrderedCallOutput } from '../prompt/prompt-lifecycle.decider';
import { DeliverOnce } from './deliver-once.usecase';
import { lazyChildLogger } from './lazy-child-logger';
import type { OutputHandled } from './output-handled';
import { deliveryCall, inPlace, PacedPlatformCall, type Park } from './paced-platform-call';
import { SessionSequencer } from './session-sequencer';
import { ShowPrompt } from './show-prompt.usecase';

export type { OutputHandled } from './output-handled';
export { LEASED_RETRY_MAX_MS } from './deliver-once.usecase';
export type { Park } from './paced-platform-call';

export interface HandleOutputDeps {
  readonly subjects: Subjects;
  readonly prompts: PromptJournal;
  readonly deliveries: DeliveredOutputs;
  readonly sessions: KnownSessions;
  readonly adapter: PlatformAdapter;
  /** Names this replica on every lease it takes. */
  readonly replicaId: string;
  /** How long a claim may hold a prompt before another handler may assume it died. */
  readonly leaseMs: number;
  /**
   * How long after an unfinished post was set out on it may wait for the platform to say
   * whether it landed. Past it, a look that keeps failing settles the post as never made
   * (R3): a prompt is never blocked for good by a post nobody can find. It must outlast the
   * lease, or a replica taking over at the lease's end could not retry a single failed look.
   */
  readonly reconcileForMs: number;
  /**
   * How long a post whose call ended without an answer (a timeout, a dropped connection) keeps
   * its prompt, or its reply's delivery, held. The platform may still make it: looking for it,
   * and posting afresh when it is not there, before it could have landed would leave two live
   * prompts, one with buttons nobody tracks, or show a reply twice. None: released at once,
   * like any failure.
   */
  readonly landingMs?: number;
  /** Where `ToolInteractionUndeliverable` goes (R2). */
  readonly commands: CommandPublisher;
  readonly now: () => Date;
  readonly logger: Logger;
  /** Paces platform calls by the adapter's rate-limit buckets; none: calls are not paced. */
  readonly pacer?: RateLimitPacer;
  /** Where refreshes the platform has no room for wait; none: every refresh is handled. */
  readonly owedRefreshes?: OwedRefreshes;
}

/**
 * The consumer's work for one output (docs/architecture.md §4.1): validate; claim the prompt in a
 * short transaction; make the chat effect outside any transaction; journal it in a second
 * short transaction. Throws TransientFailure (nak with delay) or PermanentFailure /
 * InvalidPayload (dead-letter), each with a reason code; returning means ack.
 */
export class HandleOutput {
  private readonly inSessionOrder = new SessionSequencer();
  /** Per prompt, the newest seq among the outputs this replica holds: older refreshes skip. */
  private readonly newestHeld = new Map<string, number>();
  private readonly calls: PacedPlatformCall;
  private readonly prompt: ShowPrompt;
  private readonly delivery: DeliverOnce;

  constructor(private readonly deps: HandleOutputDeps) {
    const { adapter, pacer, prompts, deliveries, replicaId, leaseMs } = deps;
    this.calls = new PacedPlatformCall({ adapter, ...(pacer === undefined ? {} : { pacer }) });
    this.prompt = new ShowPrompt({
      prompts,
      adapter,
      commands: deps.commands,
      calls: this.calls,
      replicaId,
      leaseMs,
      reconcileForMs: deps.reconcileForMs,
      landingMs: deps.landingMs ?? 0,
      now: deps.now,
    });
    this.delivery = new DeliverOnce({
      deliveries,
      prompts,
      adapter,
      replicaId,
      leaseMs,
      landingMs: deps.landingMs ?? 0,
      calls: this.calls,
    });
  }

  /**
   * As a delivery arrives, before it takes a handler slot: a refresh the platform has no room
   * for now is parked (the delivery is acked once it is stored) and shown later by the
   * owed-refresh sweeper; everything else is handled as usual.
   */
  triage(subject: string, data: Uint8Array): TriageVerdict | undefined {
    const { pacer, adapter, owedRefreshes, subjects } = this.deps;
    if (!pacer || !owedRefreshes || !adapter.rateBuckets || !subject.endsWith('.update')) {
      return undefined;
    }
    // Validated as the handler would; what it would refuse, it refuses (and dead-letters).
    const parsed = parseOutputForSubject(subjects, subject, data);
    if (!parsed.ok || parsed.value.type !== 'ToolInteractionUpdate') return undefined;
    const output = parsed.value;
    if (priorityOf(output) !== 'refresh' || output.conversation.platform !== adapter.platform) {
      return undefined;
    }
    const conversation = output.conversation;
    if (pacer.admitRefresh(adapter.rateBuckets({ effect: 'edit_prompt', conversation }))) {
      return undefined;
    }
    return { absorbed: owedRefreshes.owe(output) };
  }

  /** A parked refresh, shown now: in its session's order, like any output. */
  handleOwed(output: ToolInteractionUpdate): Promise<OutputHandled> {
    return this.inSessionOrder.run(output.sessionId, () => this.execute(output));
  }

  /**
   * Validates a delivery against the subject it came on, then handles it once the outputs of
   * its session that reached this replica before it are done.
   */
  async handleMessage(
    subject: string,
    data: Uint8Array,
    park: Park = inPlace,
  ): Promise<OutputHandled> {
    const parsed = parseOutputForSubject(this.deps.subjects, subject, data);
    if (!parsed.ok) throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
    return this.handleOutput(parsed.value, park);
  }

  /** A parsed output (ParseOutputPipe parsed it at the controller), in its session's order. */
  async handleOutput(output: Output, park: Park = inPlace): Promise<OutputHandled> {
    if (output.type === 'TextOutput' || output.type === 'ToolInteractionRejected') {
      return this.inSessionOrder.run(output.sessionId, () => this.execute(output, park), park);
    }
    // Several outputs of one prompt held at once: only the newest visible state is rendered.
    const key = `${output.sessionId}\u0000${output.callId}`;
    this.newestHeld.set(key, Math.max(this.newestHeld.get(key) ?? 0, output.seq));
    try {
      return await this.inSessionOrder.run(
        output.sessionId,
        () => this.execute(output, park),
        park,
      );
    } finally {
      if (this.newestHeld.get(key) === output.seq) this.newestHeld.delete(key);
    }
  }

  async execute(output: Output, park: Park = inPlace): Promise<OutputHandled> {
    const { adapter, sessions } = this.deps;
    if (output.conversation.platform !== adapter.platform) {
      // Only a misrouted consumer gets here; retrying would never help.
      throw new PermanentFailure(
        `wrong_platform: a ${output.conversation.platform} output reached the ${adapter.platform} binding`,
      );
    }
    if (output.type === 'TextOutput' || output.type === 'ToolInteractionRejected') {
      // Its call is known before any database work, so it waits for its bucket first: a burst
      // into one channel then costs the database nothing until each reply's turn comes, and
      // no delivery lease runs out while it waits. A slot taken for an output already
      // delivered is one call's room wasted, rarely.
      await this.calls.pace(deliveryCall(output), 'urgent', park);
    }
    await sessions.remember(output.sessionId, output.conversation);
    const log = this.logFor(output);
    switch (output.type) {
      case 'TextOutput': {
        const posted = await this.delivery.text(output, log);
        return posted === undefined
          ? { outcome: 'dropped', reason: 'already_delivered' }
          : { outcome: 'text_posted', messageRef: posted.result };
      }
      case 'ToolInteractionRejected':
        return (await this.delivery.notice(output, log)) === undefined
          ? { outcome: 'dropped', reason: 'already_delivered' }
          : { outcome: 'noticed' };
      case 'ToolInteractionRequest':
      case 'ToolInteractionUpdate':
      case 'ToolInteractionResolved':
        return this.applyToPrompt(output, log, park);
    }
  }

  private applyToPrompt(
    output: OrderedCallOutput,
    log: Logger,
    park: Park,
  ): Promise<OutputHandled> {
    const priority = priorityOf(output);
    const newest = this.newestHeld.get(`${output.sessionId}\u0000${output.callId}`) ?? 0;
    if (priority === 'refresh' && newest > output.seq) {
      log.debug({ newestSeq: newest }, 'refresh superseded by a newer output held here');
      return Promise.resolve({ outcome: 'dropped', reason: 'superseded' });
    }
    return this.prompt.apply(output, log, priority, park);
  }

  private logFor(output: Output): Logger {
    return lazyChildLogger(this.deps.logger, () => ({
      platform: output.conversation.platform,
      sessionId: output.sessionId,
      ...(output.type === 'TextOutput' ? {} : { callId: output.callId }),
      outputId: output.id,
      outputType: output.type,
    }));
  }
}
