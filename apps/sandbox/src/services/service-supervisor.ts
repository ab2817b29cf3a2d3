import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../infrastructure/local-ports';

export const SERVICE_NAMES = [
  'session-service',
  'slack-binding',
  'discord-binding',
  'mattermost-binding',
  'approval-api',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export type ServiceState =
  'starting' | 'ready' | 'not ready' | 'stopping' | 'killed' | 'exited' | 'stopped';

export interface ServiceStatus {
  readonly name: ServiceName;
  readonly state: ServiceState;
  readonly port: number;
  readonly pid: number | undefined;
  readonly starts: number;
  /** The exit code or signal of the last process, once it is gone. */
  readonly lastExit: string | undefined;
}

export interface ServiceSpec {
  readonly name: ServiceName;
  readonly port: number;
  readonly env: Record<string, string>;
  /**
   * The environment for another port, when the one picked free was taken before the service
   * bound it (another process may take a port between the pick and the bind); absent for a
   * fixed port, such as the one a real platform's webhook points at.
   */
  readonly onPort?: (port: number) => Record<string, string>;
}

/** Grace beyond a service's drain deadline before it is killed (its own forced exit is 3 s). */
const STOP_GRACE_MS = 4_000;
const HEALTH_EVERY_MS = 500;
/** How often a service whose port was taken at start is moved to another before it counts as exited. */
const PORT_RETRIES = 5;

class SupervisedService {
  child?: ChildProcess;
  exited?: Promise<void>;
  state: ServiceState = 'stopped';
  starts = 0;
  portRetries = 0;
  lastExit: string | undefined;
  /** Where this start's output begins in the service's log. */
  logOffset = 0;

  constructor(public spec: ServiceSpec) {}
}

/**
 * Runs the built services as child processes on fixed ports, watches their /health/ready, and
 * lets the sandbox page restart one (SIGTERM, then start again) or kill -9 one (it then stays
 * down until restarted), as an operator or a crash would.
 */
export class ServiceSupervisor {
  private readonly services = new Map<ServiceName, SupervisedService>();
  private readonly healthTimer: NodeJS.Timeout;
  private version = 0;
  private closing = false;

  constructor(
    private readonly root: string,
    private readonly logDir: string,
    private readonly drainMs: number,
    specs: readonly ServiceSpec[],
    private readonly note: (line: string) => void = () => undefined,
  ) {
    for (const spec of specs) this.services.set(spec.name, new SupervisedService(spec));
    this.healthTimer = setInterval(() => void this.checkHealth(), HEALTH_EVERY_MS);
    this.healthTimer.unref();
  }

  /** Changes whenever a service's state does, so the page knows when to redraw. */
  get changes(): number {
    return this.version;
  }

  url(name: ServiceName): string {
    return `http://127.0.0.1:${this.get(name).spec.port}`;
  }

  statuses(): ServiceStatus[] {
    return [...this.services.values()].map((s) => ({
      name: s.spec.name,
      state: s.state,
      port: s.spec.port,
      pid: s.child?.exitCode === null && s.child.signalCode === null ? s.child.pid : undefined,
      starts: s.starts,
      lastExit: s.lastExit,
    }));
  }

  startAll(): void {
    for (const service of this.services.values()) this.start(service);
  }

  async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ([...this.services.values()].some((s) => s.state !== 'ready')) {
      const gone = [...this.services.values()].find((s) => s.state === 'exited');
      if (gone) throw new Error(`${gone.spec.name} exited at start (${gone.lastExit})`);
      if (Date.now() > deadline) {
        const waiting = [...this.services.values()].filter((s) => s.state !== 'ready');
        throw new Error(
          `not ready after ${timeoutMs} ms: ${waiting.map((s) => s.spec.name).join(', ')}`,
        );
      }
      await this.checkHealth();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async restart(name: ServiceName): Promise<void> {
    const service = this.get(name);
    await this.stopOne(service, 'SIGTERM');
    this.start(service);
  }

  async kill(name: ServiceName): Promise<void> {
    const service = this.get(name);
    await this.stopOne(service, 'SIGKILL');
    this.setState(service, 'killed');
  }

  /**
   * SIGTERM to every service at once; each drains within its deadline or is killed. Returns
   * how each one that was running ended (`exit 0` is a drain).
   */
  async stopAll(): Promise<string[]> {
    this.closing = true;
    clearInterval(this.healthTimer);
    const running = [...this.services.values()].filter(
      (s) => s.child && s.child.exitCode === null && s.child.signalCode === null,
    );
    await Promise.all(running.map((s) => this.stopOne(s, 'SIGTERM')));
    return running.map((s) => `${s.spec.name} ${s.lastExit ?? 'running'}`);
  }

  private get(name: ServiceName): SupervisedService {
    const service = this.services.get(name);
    if (!service) throw new Error(`no service ${name}`);
    return service;
  }

  private start(service: SupervisedService): void {
    const entry = join(this.root, 'dist', 'apps', service.spec.name, 'main.js');
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build`);
    const logFile = this.logOf(service);
    const log = openSync(logFile, 'a');
    service.logOffset = statSync(logFile).size;
    let child: ChildProcess;
    try {
      // Its own process group, like NATS and PostgreSQL: a Ctrl-C at the terminal reaches only
      // npm start, which drains the services once, rather than each service directly (where a
      // second copy of the signal, forwarded by npm, would cut its drain short). The IPC
      // channel carries nothing: it closes when npm start dies, even by kill -9, and the
      // service then drains on its own (ParentWatch) instead of running on as an orphan.
      child = spawn(process.execPath, [entry], {
        cwd: this.root,
        detached: true,
        env: { ...service.spec.env, PORT: String(service.spec.port) },
        stdio: ['ignore', log, log, 'ipc'],
      });
    } finally {
      closeSync(log);
    }
    service.child = child;
    service.starts += 1;
    service.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        service.lastExit = signal ?? `exit ${code}`;
        if (service.child === child && service.state === 'starting' && this.portTaken(service)) {
          void this.moveToAnotherPort(service).finally(resolve);
          return;
        }
        if (service.child === child && service.state !== 'stopping') {
          this.setState(service, signal === 'SIGKILL' ? 'killed' : 'exited');
        }
        resolve();
      }),
    );
    this.setState(service, 'starting');
  }

  private logOf(service: SupervisedService): string {
    return join(this.logDir, `${service.spec.name}.log`);
  }

  /** Whether this start ended because its port was in use (the log says EADDRINUSE). */
  private portTaken(service: SupervisedService): boolean {
    const { onPort } = service.spec;
    if (onPort === undefined || service.portRetries >= PORT_RETRIES) return false;
    const output = readFileSync(this.logOf(service)).subarray(service.logOffset).toString();
    return output.includes('EADDRINUSE');
  }

  private async moveToAnotherPort(service: SupervisedService): Promise<void> {
    const { spec } = service;
    service.portRetries += 1;
    try {
      const port = await freePort();
      service.spec = { ...spec, port, env: spec.onPort!(port) };
      this.note(`${spec.name}: port ${spec.port} was taken before it bound it; moved to ${port}`);
      // Still starting unless a kill or the sandbox's stop came in meanwhile.
      if (service.state === 'starting' && !this.closing) this.start(service);
    } catch (error) {
      this.note(`${spec.name}: no other port (${String(error)})`);
      this.setState(service, 'exited');
    }
  }

  private async stopOne(service: SupervisedService, signal: NodeJS.Signals): Promise<void> {
    const child = service.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.setState(service, 'stopping');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), this.drainMs + STOP_GRACE_MS);
    await service.exited;
    clearTimeout(timer);
    this.setState(service, signal === 'SIGKILL' ? 'killed' : 'stopped');
  }

  private async checkHealth(): Promise<void> {
    await Promise.all(
      [...this.services.values()].map(async (service) => {
        if (
          service.state !== 'starting' &&
          service.state !== 'ready' &&
          service.state !== 'not ready'
        )
          return;
        const child = service.child;
        const ready = await fetch(`${this.url(service.spec.name)}/health/ready`, {
          signal: AbortSignal.timeout(1_000),
        }).then(
          (response) => response.status === 200,
          () => false,
        );
        if (service.child !== child || !['starting', 'ready', 'not ready'].includes(service.state))
          return;
        if (ready) this.setState(service, 'ready');
        else if (service.state === 'ready') this.setState(service, 'not ready');
      }),
    );
  }

  private setState(service: SupervisedService, state: ServiceState): void {
    if (service.state === state) return;
    service.state = state;
    this.version += 1;
  }
}
