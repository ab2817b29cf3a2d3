import type { ProviderMessage, ToolCall } from '@tollgate/session-read-model';

export interface ModelRequest {
  /** The provider history, ending with the user's message or the batch's tool results. */
  readonly messages: readonly ProviderMessage[];
  /** Seq of the UserMessageReceived that started the turn (the scripted model's call ids). */
  readonly turnSeq: number;
  readonly tools: readonly {
    readonly name: string;
    readonly description: string;
    /** JSON Schema of the arguments; absent, any object. */
    readonly parameters?: Readonly<Record<string, unknown>>;
  }[];
}

export interface ModelReply {
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
}

/** The model port: scripted (deterministic) or an OpenAI-compatible chat-completions API. */
export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelReply>;
}

export const MODEL_CLIENT = Symbol('MODEL_CLIENT');
