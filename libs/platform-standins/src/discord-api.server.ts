import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultQueue } from './fault-queue';
import type { LocalHttpServer } from './local-http-server';
import { readBody } from './request-body';
import {
  DISCORD_FAKE_DEFAULTS,
  type DiscordApiCall,
  type DiscordApiFakeOptions,
  type DiscordFault,
  type DiscordMethod,
} from './discord-api.types';
import type { Result } from './discord-api.readers';
import { API_PATH, routeOf, type Params } from './discord-api.routes';
import type { DiscordMessageStore } from './discord-message-store';
import type { DiscordInteractionRoutes } from './discord-interaction.routes';
import type { DiscordGuildRoutes } from './discord-guild.routes';

/**
 * How the Discord stand-in serves one HTTP request: parse it, record the call, apply the
 * latency and any fault it was told to inject, check the token, and hand the call to the
 * message, interaction or guild routes. Apart from `DiscordApiFake` so that the class tests
 * drive holds only its controls and state, and a request's path reads top to bottom here.
 */
export class DiscordRequestHandler {
  // Not private: DiscordApiFake's calls, failNext, clearFaults and setLatencyMs reach them.
  callLog: DiscordApiCall[] = [];
  readonly faults = new FaultQueue<DiscordMethod, DiscordFault>();
  latencyMs = 0;

  constructor(
    private readonly http: LocalHttpServer,
    private readonly config: Required<DiscordApiFakeOptions>,
    private readonly messages: DiscordMessageStore,
    private readonly interactions: DiscordInteractionRoutes,
    private readonly guild: DiscordGuildRoutes,
  ) {}

  /** Clears recorded calls, pending faults and latency. */
  reset(): void {
    this.callLog = [];
    this.faults.clear();
    this.latencyMs = 0;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.serve(req, res);
    } catch (error) {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`DiscordApiFake failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const route = API_PATH.exec(url.pathname);
    if (!route || route[2] !== '10') {
      send(res, { status: 404, body: { message: '404: Not Found', code: 0 } });
      return;
    }
    const client = route[1];
    const path = decodeURIComponent(route[3]);
    const httpMethod = (req.method ?? 'GET').toUpperCase();
    const parsed = raw === '' ? {} : safeJson(raw);
    const body =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    const { method, params } = routeOf(httpMethod, path);
    const channel =
      params.channel ?? this.interactions.interactions.get(params.token ?? '')?.channelId;
    const fault = method === 'unknown' ? undefined : this.faults.take(method, client, channel);
    const call: DiscordApiCall = {
      method,
      httpMethod,
      path,
      ...(client === undefined ? {} : { client }),
      ...(channel === undefined ? {} : { channel }),
      body,
      ...(Array.isArray(parsed) ? { list: parsed as unknown[] } : {}),
      at: new Date(),
      ...(fault ? { fault } : {}),
    };
    this.callLog.push(call);

    if (this.latencyMs > 0 && !(await this.http.pause(this.latencyMs, res))) return;
    const dispatch = (): Result =>
      this.dispatch(call, params, url.searchParams, req.headers.authorization);
    if (!fault) {
      send(res, dispatch());
    } else if ('status' in fault) {
      res.writeHead(fault.status, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`fake Discord outage (${fault.status})`);
    } else if ('rateLimit' in fault) {
      send(
        res,
        {
          status: 429,
          body: {
            message: 'You are being rate limited.',
            retry_after: fault.rateLimit,
            global: false,
          },
        },
        { 'Retry-After': String(fault.rateLimit), 'X-RateLimit-Scope': 'user' },
      );
    } else if ('refuse' in fault) {
      send(res, {
        status: fault.refuse.status,
        body: { code: fault.refuse.code, message: fault.refuse.message },
      });
    } else if ('hangMs' in fault) {
      if (!(await this.http.pause(fault.hangMs, res))) return;
      send(res, dispatch());
    } else {
      const result = dispatch();
      if (fault.answerAfterMs === undefined) await this.http.pause(Infinity, res);
      else if (await this.http.pause(fault.answerAfterMs, res)) send(res, result);
    }
  }

  private dispatch(
    call: DiscordApiCall,
    params: Params,
    query: URLSearchParams,
    authorization: string | undefined,
  ): Result {
    const { method, body } = call;
    const webhook = method === 'createFollowup' || method === 'editOriginal';
    if (method === 'unknown') return { status: 404, body: { message: '404: Not Found', code: 0 } };
    if (!webhook) {
      // Webhook (interaction) routes are authorized by their token; everything else by the bot's.
      if (authorization !== `Bot ${this.config.botToken}`) {
        return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
      }
    } else if (params.app !== this.config.applicationId || !params.token) {
      return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    }
    switch (method) {
      case 'createMessage':
        return this.messages.createMessage(params.channel!, body, call);
      case 'editMessage':
        return this.messages.editMessage(params.channel!, params.message!, body);
      case 'listMessages':
        return this.messages.listMessages(params.channel!, query);
      case 'createFollowup':
        return this.interactions.createFollowup(params.token!, body);
      case 'editOriginal':
        return this.interactions.editOriginal(params.token!, body);
      case 'createDm':
        return this.messages.createDm(body);
      case 'overwriteCommands':
        return this.guild.overwriteCommands(params.app!, params.guild, call.list);
      case 'listGuildMembers':
        return this.guild.listGuildMembers(params.guild!, query);
      case 'getMe':
        return {
          status: 200,
          body: {
            id: this.config.applicationId,
            username: DISCORD_FAKE_DEFAULTS.botUsername,
            bot: true,
          },
        };
    }
  }
}

function send(res: ServerResponse, result: Result, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(result.status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(result.body));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
