import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Platform } from '@tollgate/protocol';
import { z } from 'zod';
import type { AgentAnswer } from '../agent/sandbox-agent';
import { isPersonKey, type PersonKey } from '../platforms/sandbox-people';
import type { SandboxPlatform } from '../platforms/sandbox-platform.port';
import {
  SERVICE_NAMES,
  type ServiceName,
  type ServiceSupervisor,
} from '../services/service-supervisor';
import { renderConversation, renderPage, renderServices } from './sandbox-page.renderer';

const MAX_BODY_BYTES = 64 * 1024;
const WATCH_EVERY_MS = 150;
const platformSchema = z.enum(['slack', 'discord', 'mattermost']);
const personSchema = z.enum(['alice', 'bob']);
const saySchema = z.strictObject({
  platform: platformSchema,
  as: personSchema,
  text: z.string().trim().min(1).max(4_000),
});
const agentSchema = z.strictObject({ platform: platformSchema });
const formIdSchema = z.string().min(1).max(64);
const formSchema = z.strictObject({
  platform: platformSchema,
  as: personSchema,
  id: formIdSchema,
  // A platform's form holds at most 5 fields of at most 4,000 characters (Discord's bound).
  values: z
    .record(z.string().max(300), z.string().max(4_000))
    .refine((v) => Object.keys(v).length <= 5, 'at most 5 fields'),
});
const closeFormSchema = z.strictObject({
  platform: platformSchema,
  as: personSchema,
  id: formIdSchema,
});
const clickSchema = z.strictObject({
  platform: platformSchema,
  as: personSchema,
  ref: z.string().max(2_000),
});

export interface SandboxPageDeps {
  readonly platforms: ReadonlyMap<Platform, SandboxPlatform>;
  readonly supervisor: ServiceSupervisor;
  /** Where each platform's binding answers. */
  bindingUrl(platform: Platform): string;
  /** An outside agent's Claude Code hook into the panel, answered once someone decides. */
  agent(platform: Platform): Promise<AgentAnswer>;
  /** The files the agent's filesystem tools have made, shown beside the services. */
  workspaceFiles(): readonly string[];
  /** Where the agent's filesystem tools work: the editable folder chip names a path in it. */
  readonly workspaceDir?: string;
}

/**
 * The sandbox page on 127.0.0.1 only. GETs render HTML; `/events` is a server-sent event
 * stream naming what changed (a panel or the services), found by watching the stand-ins'
 * fingerprints; POSTs (JSON only, from this page's own origin) send a person's message, click
 * or form submission (G2) to a binding, or restart or kill a service.
 */
export class SandboxPageServer {
  private readonly server: Server;
  private readonly streams = new Set<ServerResponse>();
  private readonly seen = new Map<string, string>();
  private watcher?: NodeJS.Timeout;
  private port = 0;

  constructor(private readonly deps: SandboxPageDeps) {
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          send(res, 500, 'application/json', JSON.stringify({ error: String(error) }));
        else res.end();
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens on `port`, or on a free one when it is taken (or 0). */
  async listen(port: number): Promise<string> {
    const tryListen = (p: number) =>
      new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(p, '127.0.0.1', () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    await tryListen(port).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE' || port === 0) throw error;
      return tryListen(0);
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.watcher = setInterval(() => this.watch(), WATCH_EVERY_MS);
    return this.url;
  }

  async close(): Promise<void> {
    clearInterval(this.watcher);
    for (const stream of this.streams) stream.end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private watch(): void {
    const changed: string[] = [];
    for (const [platform, panel] of this.deps.platforms) {
      const print = panel.fingerprint();
      if (this.seen.get(platform) !== print) changed.push(`event: panel\ndata: ${platform}\n\n`);
      this.seen.set(platform, print);
    }
    const services = `${this.deps.supervisor.changes}/${this.deps.workspaceFiles().join('/')}`;
    if (this.seen.get('services') !== services) changed.push('event: services\ndata: all\n\n');
    this.seen.set('services', services);
    if (changed.length === 0) return;
    for (const stream of this.streams) stream.write(changed.join(''));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (!this.sameSite(req)) return send(res, 403, 'text/plain', 'this page answers only itself');
    if (req.method === 'GET') return this.get(url, res);
    if (req.method !== 'POST') return send(res, 405, 'text/plain', 'method not allowed');
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return send(res, 415, 'text/plain', 'JSON only');
    const body = await readBody(req);
    if (body === undefined) return send(res, 413, 'text/plain', 'too large');

    if (url.pathname === '/api/say') {
      const read = saySchema.safeParse(parseJson(body));
      if (!read.success)
        return send(res, 400, 'application/json', JSON.stringify({ error: read.error.message }));
      const { platform, as, text } = read.data;
      return this.deliver(res, () =>
        this.platform(platform).say(this.deps.bindingUrl(platform), as, text),
      );
    }
    if (url.pathname === '/api/click') {
      const read = clickSchema.safeParse(parseJson(body));
      if (!read.success)
        return send(res, 400, 'application/json', JSON.stringify({ error: read.error.message }));
      const { platform, as, ref } = read.data;
      return this.deliver(res, () =>
        this.platform(platform).click(this.deps.bindingUrl(platform), as, ref),
      );
    }
    if (url.pathname === '/api/form') {
      const read = formSchema.safeParse(parseJson(body));
      if (!read.success)
        return send(res, 400, 'application/json', JSON.stringify({ error: read.error.message }));
      const { platform, as, id, values } = read.data;
      return this.deliver(res, () =>
        this.platform(platform).submitForm(this.deps.bindingUrl(platform), as, id, values),
      );
    }
    if (url.pathname === '/api/form/close') {
      const read = closeFormSchema.safeParse(parseJson(body));
      if (!read.success)
        return send(res, 400, 'application/json', JSON.stringify({ error: read.error.message }));
      const { platform, as, id } = read.data;
      const closed = this.platform(platform).closeForm(as, id);
      return send(res, 200, 'application/json', JSON.stringify({ status: closed ? 200 : 404 }));
    }
    if (url.pathname === '/api/agent') {
      const read = agentSchema.safeParse(parseJson(body));
      if (!read.success)
        return send(res, 400, 'application/json', JSON.stringify({ error: read.error.message }));
      const answer = await this.deps.agent(read.data.platform).catch((error: unknown) => ({
        status: 0,
        body: { error: (error as { cause?: { code?: string } }).cause?.code ?? String(error) },
      }));
      return send(res, 200, 'application/json', JSON.stringify(answer));
    }
    const control = /^\/api\/services\/([a-z-]+)\/(restart|kill)$/.exec(url.pathname);
    if (control && (SERVICE_NAMES as readonly string[]).includes(control[1])) {
      const name = control[1] as ServiceName;
      if (control[2] === 'kill') await this.deps.supervisor.kill(name);
      else await this.deps.supervisor.restart(name);
      return send(res, 200, 'application/json', JSON.stringify({ status: 200 }));
    }
    return send(res, 404, 'text/plain', 'not found');
  }

  private get(url: URL, res: ServerResponse): void {
    const viewer = viewerOf(url);
    if (url.pathname === '/') {
      const panels = [...this.deps.platforms.values()].map((p) => p.view(viewer));
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        renderPage(
          panels,
          this.deps.supervisor.statuses(),
          viewer,
          this.deps.workspaceFiles(),
          this.deps.workspaceDir,
        ),
      );
    }
    const panel = /^\/panels\/([a-z]+)$/.exec(url.pathname);
    if (panel) {
      const platform = platformSchema.safeParse(panel[1]);
      if (!platform.success) return send(res, 404, 'text/plain', 'no such panel');
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        renderConversation(this.platform(platform.data).view(viewer)),
      );
    }
    if (url.pathname === '/services') {
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        renderServices(this.deps.supervisor.statuses(), this.deps.workspaceFiles()),
      );
    }
    if (url.pathname === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write(': connected\n\n');
      this.streams.add(res);
      res.on('close', () => this.streams.delete(res));
      return;
    }
    return send(res, 404, 'text/plain', 'not found');
  }

  private async deliver(res: ServerResponse, request: () => Promise<number>): Promise<void> {
    try {
      const status = await request();
      send(res, 200, 'application/json', JSON.stringify({ status }));
    } catch (error) {
      // The binding is down (killed, restarting): say so, as a platform would show a failure.
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      send(res, 200, 'application/json', JSON.stringify({ error: cause ?? String(error) }));
    }
  }

  private platform(platform: Platform): SandboxPlatform {
    const found = this.deps.platforms.get(platform);
    if (!found) throw new Error(`no ${platform} panel`);
    return found;
  }

  /**
   * Only this page may drive it: the Host must be this loopback address (no DNS rebinding), and
   * a browser's Origin, when sent, must be this page's.
   */
  private sameSite(req: IncomingMessage): boolean {
    const hosts = [`127.0.0.1:${this.port}`, `localhost:${this.port}`];
    if (!hosts.includes(req.headers.host ?? '')) return false;
    const origin = req.headers.origin;
    return origin === undefined || hosts.some((host) => origin === `http://${host}`);
  }
}

function viewerOf(url: URL): PersonKey {
  const as = url.searchParams.get('as');
  return isPersonKey(as) ? as : 'alice';
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy':
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'",
  });
  res.end(body);
}
