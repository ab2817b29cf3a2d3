import type { GrantUse, ProviderMessage, ToolCall } from '@tollgate/session-read-model';
import type { ModelReply, ModelRequest } from '../../model/model-client.port';
import type { ToolOutcome } from '../../tools/tool';
import type { GrantRead, ReadGrant } from './grant-read';
import type { SessionDeps } from './session-deps';
import type { CheckpointName } from './session-recorder';
import type { GrantClaim } from './tool-grants.port';

/** What the turn decider consults besides the state: configuration, never I/O. */
export type TurnConfig = Pick<SessionDeps, 'tools' | 'policy'>;

/**
 * Where the turn is inside a batch, carried by the effect so the shell keeps no memory of
 * it: the model's batch is examined call by call (`next`, the calls kept for an approver so
 * far in `gated`); a redrive runs what is left and then shows the model `context` and the
 * results.
 */
export type BatchCursor =
  | {
      readonly kind: 'batch';
      readonly round: number;
      readonly content: string;
      readonly next: number;
      readonly gated: readonly string[];
    }
  | { readonly kind: 'redrive'; readonly context: readonly ProviderMessage[] };

/**
 * The I/O a turn needs, as data (D1). The shell (`session/drive-turn.ts`) commits what was
 * decided so far when an effect names a `commitFirst` point, runs the effect, and hands the
 * decider its result as the next input. Nothing waits inside a decision.
 */
export type TurnEffect =
  | {
      readonly type: 'ReadHistory';
      readonly commitFirst: CheckpointName;
      /** `model`: the whole history, for a model round; `redrive`: up to the batch. */
      readonly purpose: 'model' | 'redrive';
      readonly throughSeq?: number;
      readonly round: number;
    }
  | {
      readonly type: 'CallModel';
      readonly commitFirst?: CheckpointName;
      readonly request: ModelRequest;
      readonly round: number;
    }
  | (ReadGrant & { readonly cursor: Extract<BatchCursor, { kind: 'batch' }> })
  | {
      readonly type: 'TakeGrantUse';
      readonly claim: GrantClaim;
      readonly use: GrantUse;
      readonly call: ToolCall;
      readonly cursor: Extract<BatchCursor, { kind: 'batch' }>;
    }
  | {
      readonly type: 'RunTool';
      readonly commitFirst: 'tool-starting';
      readonly call: ToolCall;
      /** Undefined when the model's arguments are no JSON object: the run fails with that. */
      readonly arguments: Record<string, unknown> | undefined;
      readonly noteCount: number;
      readonly cursor: BatchCursor;
    };

type EffectOf<T extends TurnEffect['type']> = Extract<TurnEffect, { type: T }>;

/** What the shell hands back: a decision just recorded, or the result of the last effect. */
export type TurnInput =
  | { readonly type: 'Decided' }
  | {
      readonly type: 'HistoryRead';
      readonly effect: EffectOf<'ReadHistory'>;
      readonly messages: readonly ProviderMessage[];
    }
  | {
      readonly type: 'HistoryUnrestorable';
      readonly effect: EffectOf<'ReadHistory'>;
      readonly reason: string;
    }
  | {
      readonly type: 'ModelReplied';
      readonly effect: EffectOf<'CallModel'>;
      readonly reply: ModelReply;
    }
  | {
      readonly type: 'ModelFailed';
      readonly effect: EffectOf<'CallModel'>;
      readonly reason: string;
    }
  | {
      readonly type: 'GrantRead';
      readonly effect: EffectOf<'ReadGrant'>;
      readonly found: GrantRead;
    }
  | {
      readonly type: 'GrantUseTaken';
      readonly effect: EffectOf<'TakeGrantUse'>;
      /** Undefined: no use was left to take (another replica took the last, or it lapsed). */
      readonly usesLeft: number | undefined;
    }
  | {
      readonly type: 'ToolRan';
      readonly effect: EffectOf<'RunTool'>;
      readonly outcome: ToolOutcome;
    }
  | { readonly type: 'ToolFailed'; readonly effect: EffectOf<'RunTool'>; readonly message: string };

export const DECIDED: TurnInput = { type: 'Decided' };
