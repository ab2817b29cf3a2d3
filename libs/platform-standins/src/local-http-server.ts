import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP side every platform fake shares: listen on 127.0.0.1, cut every connection on
 * stop (held requests included, so a test leaves no open handle), and delays that end early
 * when the client hangs up or the fake stops.
 */
export class LocalHttpServer {
  private server: Server | undefined;
  private readonly sockets = new Map<Socket, Promise<void>>();
  private readonly cancellations = new Set<() => void>();
  private baseUrl: string | undefined;

  constructor(
    private readonly name: string,
    private readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  ) {}

  /** `http://127.0.0.1:<port>` while started. */
  get url(): string | undefined {
    return this.baseUrl;
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /** Listens on `port` when given (e.g. for a binding started by hand), else any free one. */
  async start(port?: number): Promise<string> {
    if (this.server) throw new Error(`${this.name} is already started`);
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket) => {
      const closed = new Promise<void>((resolve) =>
        socket.once('close', () => {
          this.sockets.delete(socket);
          resolve();
        }),
      );
      this.sockets.set(socket, closed);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port ?? 0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${address.port}`;
    return this.baseUrl;
  }

  /** Closes the listener, cuts every connection (held ones included) and cancels pending delays. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.baseUrl = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const cancel of [...this.cancellations]) cancel();
    for (const socket of this.sockets.keys()) socket.destroy();
    await Promise.all([closed, ...this.sockets.values()]);
  }

  /** Resolves true after `ms`, or false as soon as the client hangs up or the fake stops. */
  pause(ms: number, res: ServerResponse): Promise<boolean> {
    if (res.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => finish(true), ms) : undefined;
      const cancel = (): void => finish(false);
      const finish = (completed: boolean): void => {
        clearTimeout(timer);
        res.off('close', cancel);
        this.cancellations.delete(cancel);
        resolve(completed);
      };
      res.on('close', cancel);
      this.cancellations.add(cancel);
    });
  }
}
