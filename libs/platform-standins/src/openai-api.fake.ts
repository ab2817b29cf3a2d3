import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readBody } from './request-body';

/**
 * A local OpenAI-compatible chat-completions API (`POST /v1/chat/completions`). It records
 * every request, checks the bearer key, and answers from a script: a completion with content
 * and tool calls, an HTTP error, a 200 whose body is not a completion, or no answer at all.
 * When the script runs out it answers with `fallback` (by default, a 500 saying so).
 */

export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments' JSON text, as the API sends it. */
  readonly arguments: string;
}

export type ScriptedChatReply =
  | { readonly content: string | null; readonly toolCalls?: readonly FakeToolCall[] }
  | {
      readonly status: number;
      readonly body?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Holds the request open until `gate` settles, then answers with `reply`. */
  | { readonly gate: Promise<unknown>; readonly reply: ScriptedChatReply }
  | { readonly malformed: string }
  /** Keeps the request open and never answers: the client's timeout must end it. */
  | { readonly hang: true };

export interface RecordedChatRequest {
  readonly path: string;
  /** When it arrived (Date.now()). */
  readonly at: number;
  readonly authorization: string | undefined;
  /** The parsed JSON body (undefined when it did not parse). */
  readonly body: ChatCompletionRequestBody | undefined;
  readonly reply: ScriptedChatReply | 'unauthorized' | 'not_found';
}

export interface ChatCompletionRequestBody {
  readonly model: string;
  readonly messages: readonly Record<string, unknown>[];
  readonly tools?: readonly {
    type: string;
    function: { name: string; description: string; parameters: unknown };
  }[];
  readonly [key: string]: unknown;
}

export interface OpenAiApiFakeOptions {
  /** When set, a request without `Authorization: Bearer <apiKey>` gets 401. */
  readonly apiKey?: string;
  /** Answers a request when the script is empty. */
  readonly fallback?: (request: ChatCompletionRequestBody) => ScriptedChatReply;
}

export const OPENAI_FAKE_KEY = 'sk-tollgate-fake-key';

export class OpenAiApiFake {
  readonly requests: RecordedChatRequest[] = [];
  private readonly queue: ScriptedChatReply[] = [];
  private readonly sockets = new Map<Socket, Promise<void>>();
  private server?: Server;
  private port = 0;
  private completions = 0;
  /** Completion requests received and not yet answered. */
  inFlight = 0;
  /** The most completion requests ever open at once. */
  peakInFlight = 0;

  private constructor(private readonly options: OpenAiApiFakeOptions) {}

  static async start(options: OpenAiApiFakeOptions = {}): Promise<OpenAiApiFake> {
    const fake = new OpenAiApiFake(options);
    await fake.listen();
    return fake;
  }

  /** What `OPENAI_BASE_URL` should be: the API root up to and including `/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Queues replies, answered in order, one per completion request. */
  script(...replies: ScriptedChatReply[]): void {
    this.queue.push(...replies);
  }

  /** Requests that reached the completions endpoint with the right key. */
  get completionRequests(): ChatCompletionRequestBody[] {
    return this.requests.flatMap((r) =>
      r.body && r.reply !== 'unauthorized' && r.reply !== 'not_found' ? [r.body] : [],
    );
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Hanging requests hold their sockets open; end them so the server can close.
    for (const socket of this.sockets.keys()) socket.destroy();
    await Promise.all([closed, ...this.sockets.values()]);
  }

  private async listen(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket: Socket) => {
      const closed = new Promise<void>((resolve) =>
        socket.once('close', () => {
          this.sockets.delete(socket);
          resolve();
        }),
      );
      this.sockets.set(socket, closed);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    this.port = address.port;
    this.server = server;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const authorization = req.headers.authorization;
    const body = parseJson(raw);
    const at = Date.now();
    const record = (reply: RecordedChatRequest['reply']) =>
      this.requests.push({ path, at, authorization, body, reply });

    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      record('not_found');
      return send(res, 404, apiError(`Unknown request URL: ${req.method} ${path}`, 'not_found'));
    }
    if (this.options.apiKey !== undefined && authorization !== `Bearer ${this.options.apiKey}`) {
      record('unauthorized');
      return send(res, 401, apiError('Incorrect API key provided.', 'invalid_api_key'));
    }
    if (!body) {
      record({ status: 400 });
      return send(res, 400, apiError('We could not parse the JSON body of your request.'));
    }
    let reply = this.queue.shift() ?? this.fallback(body);
    record(reply);
    if ('gate' in reply) {
      this.inFlight += 1;
      this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
      try {
        await reply.gate;
      } finally {
        this.inFlight -= 1;
      }
      reply = reply.reply;
    }
    if ('hang' in reply) return;
    if ('gate' in reply) return send(res, 500, apiError('a gate inside a gate'));
    if ('status' in reply) {
      return send(
        res,
        reply.status,
        reply.body ?? apiError(`scripted ${reply.status}`),
        reply.headers,
      );
    }
    if ('malformed' in reply) return send(res, 200, reply.malformed);
    this.completions += 1;
    return send(res, 200, JSON.stringify(this.completion(body.model, reply)));
  }

  private fallback(body: ChatCompletionRequestBody): ScriptedChatReply {
    return (
      this.options.fallback?.(body) ?? {
        status: 500,
        body: apiError('the fake has no scripted reply left'),
      }
    );
  }

  private completion(
    model: string,
    reply: { content: string | null; toolCalls?: readonly FakeToolCall[] },
  ) {
    const toolCalls = reply.toolCalls ?? [];
    return {
      id: `chatcmpl-fake-${this.completions}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content,
            ...(toolCalls.length > 0
              ? {
                  tool_calls: toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
  }
}

function parseJson(text: string): ChatCompletionRequestBody | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as ChatCompletionRequestBody)
      : undefined;
  } catch {
    return undefined;
  }
}

function apiError(message: string, code: string | null = null): string {
  return JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}
