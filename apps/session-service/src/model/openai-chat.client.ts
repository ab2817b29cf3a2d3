import { LIMITS } from '@tollgate/protocol';
import { agentFetch, type FetchLike } from '@tollgate/service-runtime';
import { z } from 'zod';
import type { ProviderMessage, ToolCall } from '@tollgate/session-read-model';
import type { ModelClient, ModelReply, ModelRequest } from './model-client.port';
import { ModelUnavailable, retryAfterMs } from './model-unavailable.error';

export interface OpenAiChatSettings {
  /** Up to and including the version segment, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  /** How long one completion may take before the turn fails. */
  readonly timeoutMs?: number;
  /**
   * Connections kept open to the API: MODEL_MAX_CONCURRENCY, so every call the provider
   * limiter lets through has a socket of its own. Default 64.
   */
  readonly maxSockets?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Statuses that say "not now" rather than "not this request". */
const UNAVAILABLE_STATUSES = new Set([429, 502, 503, 504]);
/** Enough of an error body to say what went wrong, never a whole page. */
const ERROR_BODY_CHARS = 300;

export type ChatMessage =
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: {
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: {
    type: 'function';
    function: { name: string; description: string; parameters: Readonly<Record<string, unknown>> };
  }[];
}

const replySchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().min(1).max(LIMITS.callId),
                function: z.object({
                  name: z.string().min(1),
                  // Some compatible servers send the arguments as an object, not its JSON text.
                  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
                }),
              }),
            )
            .nullish(),
        }),
      }),
    )
    .min(1),
});

/**
 * The model port over an OpenAI-compatible chat-completions API. Every failure (no answer in
 * time, a non-2xx status, a body that is not a completion) throws, and the turn runner turns
 * it into a failed turn with a notice. The key is sent, never logged or put in a message.
 */
export class OpenAiChatClient implements ModelClient {
  private readonly url: string;
  private readonly timeoutMs: number;
  /**
   * node:http over a keep-alive Agent rather than the global fetch, as the bindings' platform
   * calls: undici's web streams and Request/Response objects cost more CPU than the rest of a
   * small model round trip, and a completion is a JSON body read whole.
   */
  private readonly fetch: FetchLike;

  constructor(private readonly settings: OpenAiChatSettings) {
    this.url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = agentFetch({ maxSockets: settings.maxSockets });
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    const signal = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await this.fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(toChatRequest(this.settings.model, request)),
        signal,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (error) {
      if (signal.aborted) {
        throw new ModelUnavailable(
          `the model API did not answer within ${this.timeoutMs} ms`,
          undefined,
          { cause: error },
        );
      }
      throw new ModelUnavailable(
        `the model API could not be reached: ${failureOf(error)}`,
        undefined,
        { cause: error },
      );
    }
    if (UNAVAILABLE_STATUSES.has(status)) {
      throw new ModelUnavailable(
        `the model API answered ${status}: ${this.redacted(text)}`,
        retryAfterMs(retryAfter),
      );
    }
    if (status < 200 || status > 299) {
      throw new Error(`the model API answered ${status}: ${this.redacted(text)}`);
    }
    return fromChatReply(text);
  }

  /** A server may echo the key it refused; the error becomes a chat notice. */
  private redacted(body: string): string {
    const key = this.settings.apiKey;
    const shown = key ? body.split(key).join('[redacted]') : body;
    return shown.slice(0, ERROR_BODY_CHARS);
  }
}

export function toChatRequest(model: string, request: ModelRequest): ChatRequest {
  return {
    model,
    messages: request.messages.map(toChatMessage),
    // An empty `tools` list is refused by some servers; leave it out instead.
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters ?? { type: 'object' },
            },
          })),
        }
      : {}),
  };
}

export function toChatMessage(message: ProviderMessage): ChatMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      if (!message.toolCalls || message.toolCalls.length === 0) {
        return { role: 'assistant', content: message.content };
      }
      return {
        role: 'assistant',
        // The API's own assistant messages carry null content beside tool calls.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.callId,
          type: 'function',
          function: { name: call.toolName, arguments: call.arguments },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: message.content };
  }
}

export function fromChatReply(text: string): ModelReply {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`the model API answered with a body that is not JSON: ${text.slice(0, 100)}`);
  }
  const parsed = replySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') ?? '';
    throw new Error(
      `the model API answered with a malformed completion (${where}: ${issue?.message ?? 'invalid'})`,
    );
  }
  const message = parsed.data.choices[0].message;
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({
    callId: call.id,
    toolName: call.function.name,
    arguments: argumentsText(call.function.arguments),
  }));
  const ids = new Set(toolCalls.map((c) => c.callId));
  if (ids.size !== toolCalls.length) {
    throw new Error('the model API answered with two tool calls under the same id');
  }
  return { content: message.content ?? '', toolCalls };
}

/** A call without arguments may come as `""`; the tools expect a JSON object. */
function argumentsText(value: string | Record<string, unknown>): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return value.trim() === '' ? '{}' : value;
}

/** fetch fails with "fetch failed"; the cause says why (refused, reset, DNS). */
function failureOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  return typeof cause === 'object' && cause !== null && 'message' in cause
    ? String(cause.message)
    : String(cause);
}
