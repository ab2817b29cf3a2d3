import { mkdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Platform } from '@tollgate/protocol';
import { SandboxAgent } from './agent/sandbox-agent';
import { EmbeddedPostgresServer } from './infrastructure/embedded-postgres.server';
import { reapLeftoverGroups } from './infrastructure/leftover-groups.reaper';
import { freePort } from './infrastructure/local-ports';
import { type NatsEndpoint, provideNats } from './infrastructure/nats-server.launcher';
import { provisionAsOperator } from './infrastructure/nats-provisioning';
import { ProcessGroupRecords } from './infrastructure/process-group.records';
import { loadSandboxSecrets, type SandboxSecrets } from './infrastructure/sandbox-secrets';
import { SandboxPageServer } from './page/sandbox-page.server';
import { DiscordSandboxPlatform } from './platforms/discord.sandbox-platform';
import { MattermostSandboxPlatform } from './platforms/mattermost.sandbox-platform';
import { RealSandboxPlatform } from './platforms/real.sandbox-platform';
import { SlackSandboxPlatform } from './platforms/slack.sandbox-platform';
import type { AgentRoute, SandboxPlatform } from './platforms/sandbox-platform.port';
import { REAL_BINDING_PORTS, type SandboxConfig } from './sandbox.config';
import { loadSandboxState, saveSandboxState } from './sandbox-state.store';
import { prepareWorkspace, workspaceFiles } from './workspace/sandbox-workspace';
import {
  SERVICE_NAMES,
  type ServiceName,
  type ServiceSpec,
  ServiceSupervisor,
} from './services/service-supervisor';

const PLATFORMS: readonly Platform[] = ['slack', 'discord', 'mattermost'];
const READY_WITHIN_MS = 90_000;

/**
 * Everything `npm start` runs, in the order it needs it — NATS, PostgreSQL, the platform
 * stand-ins, an approval-api client per panel, the five services, the page — and stopped the
 * other way round. Each step says what it did, so a newcomer can see where a start went wrong.
 */
export class SandboxLauncher {
  private nats?: NatsEndpoint;
  private secrets?: SandboxSecrets;
  private postgres?: EmbeddedPostgresServer;
  private supervisor?: ServiceSupervisor;
  private page?: SandboxPageServer;
  private readonly platforms = new Map<Platform, SandboxPlatform>();
  private readonly startedAt = Date.now();

  constructor(
    private readonly config: SandboxConfig,
    private readonly print: (line: string) => void,
  ) {}

  private progress = (line: string): void => {
    this.print(
      `[tollgate ${((Date.now() - this.startedAt) / 1000).toFixed(1).padStart(5)}s] ${line}`,
    );
  };

  async start(): Promise<string> {
    const { config } = this;
    const logDir = join(config.dataDir, 'logs');
    await mkdir(logDir, { recursive: true });
    const shown = (path: string) => {
      const near = relative(process.cwd(), path);
      return near.startsWith('..') ? path : near || '.';
    };

    // What a killed npm start left running holds ports and the data: stopped first.
    await reapLeftoverGroups(config.dataDir, this.progress);
    const groups = new ProcessGroupRecords(config.dataDir);

    const secrets = await loadSandboxSecrets(config.dataDir);
    this.secrets = secrets;
    const natsDir = join(config.dataDir, 'nats');
    this.nats = await provideNats(
      config.natsUrl,
      natsDir,
      join(logDir, 'nats-server.log'),
      this.progress,
      {
        prefix: config.prefix,
        roles: SERVICE_NAMES,
        passwords: secrets.nats,
        configFile: join(config.dataDir, 'nats-server.conf'),
      },
      undefined,
      undefined,
      groups.started,
    );
    if (this.nats.own) {
      // A service with credentials may create no stream or durable: the operator does, first.
      await provisionAsOperator({
        root: config.root,
        natsUrl: this.nats.url,
        password: secrets.nats.operator,
        env: { ...config.serviceEnv, TOLLGATE_SUBJECT_PREFIX: config.prefix },
        natsDir: shown(natsDir),
      });
      this.progress('NATS: streams and durables provisioned as the operator user');
    }

    let databaseUrl = config.databaseUrl;
    if (databaseUrl) {
      this.progress('PostgreSQL: using DATABASE_URL');
    } else {
      this.postgres = await EmbeddedPostgresServer.start(
        join(config.dataDir, 'pg'),
        join(logDir, 'postgres.log'),
        this.progress,
        secrets.postgres,
        secrets.postgresIsNew,
        undefined,
        groups.started,
      );
      databaseUrl = this.postgres.url;
      this.progress(
        `PostgreSQL: embedded, on 127.0.0.1:${this.postgres.port}, data in ${shown(this.postgres.dataDirectory)}, ` +
          `password (scram-sha-256) in ${shown(join(config.dataDir, 'secrets.json'))}`,
      );
    }

    const saved = await loadSandboxState(config.dataDir, this.progress);
    for (const platform of PLATFORMS) {
      const real = config.realPlatforms[platform];
      const panel = real ? new RealSandboxPlatform(platform, real) : this.standIn(platform);
      const kept = saved?.platforms[platform];
      if (!real && kept !== undefined) panel.restore(kept);
      await panel.start();
      this.platforms.set(platform, panel);
      this.progress(
        real
          ? `${platform}: real platform secrets are set, the binding talks to ${platform} itself`
          : `${platform}: local stand-in${kept === undefined ? '' : ', conversation from the last run restored'}`,
      );
    }

    const specs = await this.serviceSpecs(databaseUrl);
    const agent = await this.agentClients(specs);
    this.supervisor = new ServiceSupervisor(
      config.root,
      logDir,
      config.drainMs,
      specs,
      this.progress,
    );
    this.progress(
      `starting session-service, the three bindings and approval-api (logs in ${shown(logDir)})`,
    );
    this.supervisor.startAll();
    // Asked each time: a service whose port was taken at start moves to another.
    const bindingUrl = (platform: Platform) =>
      this.supervisor!.url(`${platform}-binding` as ServiceName);
    this.page = new SandboxPageServer({
      platforms: this.platforms,
      supervisor: this.supervisor,
      bindingUrl,
      agent: (platform) => agent.ask(this.supervisor!.url('approval-api'), platform),
      workspaceFiles: () => workspaceFiles(config.workspaceDir),
      workspaceDir: resolve(config.workspaceDir),
    });
    const url = await this.page.listen(config.pagePort);
    try {
      await this.supervisor.waitUntilReady(READY_WITHIN_MS);
      this.progress('all five services are ready');
    } catch (error) {
      this.progress(`${(error as Error).message}: see the page and ${shown(logDir)}`);
    }
    this.progress(`the sandbox page: ${url}   (Ctrl-C stops everything)`);
    return url;
  }

  /** Services first (they drain into NATS and PostgreSQL), then what they used. */
  async stop(): Promise<void> {
    const started = Date.now();
    this.progress('stopping: the services drain first');
    await this.page?.close();
    const ended = await this.supervisor?.stopAll();
    if (ended?.length) this.progress(`services stopped: ${ended.join(', ')}`);
    await saveSandboxState(this.config.dataDir, this.platforms).catch((error: unknown) =>
      this.progress(`could not keep the conversations for the next start: ${String(error)}`),
    );
    await Promise.all([...this.platforms.values()].map((p) => p.stop()));
    await this.nats?.stop();
    await this.postgres?.stop();
    this.progress(`stopped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  /** A second Ctrl-C: no more waiting for drains. */
  async killServices(): Promise<void> {
    for (const name of SERVICE_NAMES) {
      await this.supervisor?.kill(name);
    }
  }

  private standIn(platform: Platform): SandboxPlatform {
    switch (platform) {
      case 'slack':
        return new SlackSandboxPlatform();
      case 'discord':
        return new DiscordSandboxPlatform();
      case 'mattermost':
        return new MattermostSandboxPlatform();
    }
  }

  private async serviceSpecs(databaseUrl: string): Promise<ServiceSpec[]> {
    const { config } = this;
    const common = (name: ServiceName) => ({
      ...config.serviceEnv,
      HOST: '127.0.0.1',
      NATS_URL: this.nats!.url,
      // Its own user, as in production; a NATS_URL of the user's is used as it is.
      ...(this.nats!.own ? { NATS_USER: name, NATS_PASSWORD: this.secrets!.nats[name] } : {}),
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: `${config.prefix}_${name.replace(/-/g, '_')}`,
      TOLLGATE_SUBJECT_PREFIX: config.prefix,
    });
    // A port picked free may be taken before the service binds it: `onPort` moves it.
    const onFreePort = async (
      name: ServiceName,
      envFor: (port: number) => Record<string, string>,
    ): Promise<ServiceSpec> => {
      const port = await freePort();
      return { name, port, env: envFor(port), onPort: envFor };
    };
    const workspace = await prepareWorkspace(config.root, config.dataDir, config.workspaceDir);
    const specs: ServiceSpec[] = [
      await onFreePort('session-service', () => ({
        ...common('session-service'),
        ...workspace,
        ...config.sessionServiceEnv,
      })),
    ];
    for (const platform of PLATFORMS) {
      const name = `${platform}-binding` as ServiceName;
      const panel = this.platforms.get(platform)!;
      const envFor = (port: number) => ({
        ...common(name),
        ...panel.bindingEnv(`http://127.0.0.1:${port}`),
      });
      // A real platform's webhook points at a fixed port: it stays there.
      const real = config.realPlatforms[platform] !== undefined;
      const port = REAL_BINDING_PORTS[platform];
      specs.push(real ? { name, port, env: envFor(port) } : await onFreePort(name, envFor));
    }
    // A hook is held until answered; shorter than fetch's own 300 s wait for headers.
    specs.push(
      await onFreePort('approval-api', () => ({
        TOLLGATE_HOOK_HOLD_S: '240',
        ...common('approval-api'),
      })),
    );
    return specs;
  }

  /**
   * The page's outside agent: a client of approval-api for each stand-in panel, made with the
   * operator's CLI in approval-api's schema (which the CLI migrates) before the services start.
   */
  private async agentClients(specs: readonly ServiceSpec[]): Promise<SandboxAgent> {
    const env = specs.find((s) => s.name === 'approval-api')!.env;
    const agent = new SandboxAgent(this.config.root, {
      DATABASE_URL: env.DATABASE_URL ?? '',
      DATABASE_SCHEMA: env.DATABASE_SCHEMA ?? '',
    });
    const routes = new Map<Platform, AgentRoute>();
    for (const [platform, panel] of this.platforms) {
      const route = panel.agentRoute();
      if (route !== undefined) routes.set(platform, route);
    }
    for (const [platform, how] of await agent.provideClients(routes)) {
      this.progress(
        how instanceof Error
          ? `${platform}: no agent client (${how.message.split('\n')[0]})`
          : how === 'kept'
            ? `${platform}: the agent client of approval-api for the panel's "agent" button, ` +
              'kept from the last start under a new key (the old one no longer works)'
            : `${platform}: an agent client of approval-api for the panel's "agent" button`,
      );
    }
    return agent;
  }
}
