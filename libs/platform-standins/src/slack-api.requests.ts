// The Slack stand-in's request pipeline: every call is recorded, then may be held back by a
// method limit, latency or an injected fault before its handler answers. Kept apart from
// `SlackApiFake`, which owns the workspace and the public API, so the fault paths read alone.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultQueue } from './fault-queue';
import type { LocalHttpServer } from './local-http-server';
import { parseArgs, str, type SlackResult } from './slack-api.args';
import { readBody } from './request-body';
import { sendJson, sendText } from './slack-api.http';
import type { SlackMethodLimits } from './slack-api.rate-limits';
import type { SlackResponseUrls } from './slack-api.response-urls';
import type { SlackApiCall, SlackArgs, SlackFault, SlackFaultScope } from './slack-api.types';

export type SlackHandler = (args: SlackArgs) => SlackResult;

/** `/api/<method>`, or `/<client>/api/<method>` for a client's own URL. */
const API_PATH = /^\/(?:([A-Za-z0-9_-]{1,64})\/)?api\/(.+)$/;
const RESPONSE_URL_PATH = /^\/actions\/([A-Za-z0-9]+)$/;

export class SlackApiRequests {
  private limitedCalls = 0;
  private idleWaiters: Array<() => void> = [];
  private inFlight = 0;
  private callLog: SlackApiCall[] = [];
  private readonly faults = new FaultQueue<string, SlackFault>();
  private latencyMs = 0;

  constructor(
    private readonly http: LocalHttpServer,
    private readonly botToken: string,
    private readonly handlers: Readonly<Record<string, SlackHandler>>,
    private readonly methodLimits: SlackMethodLimits,
    private readonly responseUrls: SlackResponseUrls,
  ) {}

  /** Calls answered 429 because they went beyond `methodLimits`. */
  get rateLimitedCalls(): number {
    return this.limitedCalls;
  }

  get callCount(): number {
    return this.callLog.length;
  }

  get calls(): SlackApiCall[] {
    return structuredClone(this.callLog);
  }

  /** Resolves once no request is being handled (held or delayed ones included). */
  async idle(): Promise<void> {
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Clears recorded calls, pending faults and latency. */
  reset(): void {
    this.callLog = [];
    this.faults.clear();
    this.latencyMs = 0;
  }

  failNext(method: string, fault: SlackFault, times: number, scope: SlackFaultScope): void {
    this.faults.add(method, fault, times, scope);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setLatencyMs(ms: number): void {
    this.latencyMs = ms;
  }

  /** Every request the server takes; counted while in flight so `idle()` can wait for it. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    try {
      await this.serve(req, res);
    } catch (error) {
      // A bug in the fake must show up in the test, not as a hung request.
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`SlackApiFake failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        waiters.forEach((resolve) => resolve());
      }
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const responseUrl = RESPONSE_URL_PATH.exec(url.pathname);
    if (responseUrl && req.method === 'POST') {
      this.responseUrls.serve(responseUrl[1], raw, res);
      return;
    }
    const route = API_PATH.exec(url.pathname);
    if (!route) {
      sendJson(res, 404, { ok: false, error: 'not_found' });
      return;
    }
    const client = route[1];
    const method = decodeURIComponent(route[2]);
    const { args, encoding } = parseArgs(req.headers['content-type'], raw, url.searchParams);
    const fault = this.faults.take(method, client, str(args.channel));
    this.callLog.push({
      method,
      ...(client === undefined ? {} : { client }),
      args,
      at: new Date(),
      encoding,
      ...(fault ? { fault } : {}),
    });

    const retryAfterS = this.methodLimits.overLimit(method);
    if (retryAfterS !== undefined) {
      this.limitedCalls += 1;
      sendJson(
        res,
        429,
        { ok: false, error: 'ratelimited' },
        { 'Retry-After': String(retryAfterS) },
      );
      return;
    }
    if (this.latencyMs > 0 && !(await this.http.pause(this.latencyMs, res))) return;
    if (!fault) {
      sendJson(res, 200, this.dispatch(method, args, req));
      return;
    }
    if ('status' in fault) {
      sendText(res, fault.status, `fake Slack outage (${fault.status})`);
    } else if ('rateLimit' in fault) {
      sendJson(
        res,
        429,
        { ok: false, error: 'ratelimited' },
        { 'Retry-After': String(fault.rateLimit) },
      );
    } else if ('error' in fault) {
      sendJson(res, 200, { ok: false, error: fault.error });
    } else if ('hangMs' in fault) {
      if (!(await this.http.pause(fault.hangMs, res))) return;
      sendJson(res, 200, this.dispatch(method, args, req));
    } else {
      const result = this.dispatch(method, args, req);
      if (fault.answerAfterMs === undefined) await this.http.pause(Infinity, res);
      else if (await this.http.pause(fault.answerAfterMs, res)) sendJson(res, 200, result);
    }
  }

  private dispatch(method: string, args: SlackArgs, req: IncomingMessage): SlackResult {
    const handler = this.handlers[method];
    if (!handler) return { ok: false, error: 'unknown_method' };
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : str(args.token);
    if (token === undefined) return { ok: false, error: 'not_authed' };
    if (token !== this.botToken) return { ok: false, error: 'invalid_auth' };
    return handler(args);
  }
}
