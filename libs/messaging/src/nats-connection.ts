import type { ConnectionOptions, NatsConnection, Status } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import {
  describeNatsCredentials,
  natsAuthenticator,
  type NatsCredentials,
} from './nats-credentials';

export interface ConnectNatsOptions {
  servers: string | string[];
  /** Shown by the server's monitoring pages, e.g. the service name. */
  name: string;
  logger: Logger;
  /** Milliseconds between reconnect attempts; the client's default is 2 s. */
  reconnectTimeWaitMs?: number;
  /** Absent: an anonymous connection. */
  credentials?: NatsCredentials | undefined;
  /** Where replies arrive; a role's own subtree, so no other user may read them. */
  inboxPrefix?: string;
  /**
   * For one-shot tools: fail when no server answers within this many milliseconds instead of
   * waiting for NATS for ever, so an operator gets a reason rather than a hung command.
   */
  firstConnectTimeoutMs?: number;
}

/**
 * A NATS connection that never gives up and knows whether it is currently connected, so
 * readiness can follow the server going away and coming back.
 */
export class ManagedNatsConnection {
  private connected = true;
  private readonly watching: Promise<void>;

  constructor(
    readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {
    this.watching = this.watch();
  }

  /** Cheap enough for every readiness probe. */
  isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  /** Flushes what is still buffered, then closes. */
  async drain(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
    await this.watching;
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
    await this.watching;
  }

  private async watch(): Promise<void> {
    try {
      for await (const status of this.nc.status()) this.observe(status);
    } catch (error) {
      this.logger.error({ err: error }, 'nats status stream failed');
    } finally {
      this.connected = false;
    }
  }

  private observe(status: Status): void {
    switch (status.type) {
      case 'disconnect':
        this.connected = false;
        this.logger.warn({ server: status.server }, 'nats disconnected; reconnecting');
        return;
      case 'reconnect':
        this.connected = true;
        this.logger.info({ server: status.server }, 'nats reconnected');
        return;
      case 'staleConnection':
      case 'forceReconnect':
        this.connected = false;
        this.logger.warn({ status: status.type }, 'nats connection dropped; reconnecting');
        return;
      case 'close':
        this.connected = false;
        this.logger.info('nats connection closed');
        return;
      case 'ldm':
        this.logger.warn({ server: status.server }, 'nats server entering lame duck mode');
        return;
      case 'error':
        this.logger.error({ err: status.error }, 'nats server reported an error');
        return;
      case 'slowConsumer':
        this.logger.warn(
          { subject: status.sub.getSubject(), pending: status.pending },
          'nats slow consumer',
        );
        return;
      case 'reconnecting':
      case 'update':
      case 'ping':
        return;
    }
  }
}

/**
 * Connects, waiting as long as it takes for a first server (a service may start before
 * NATS), then reconnects forever: the client's default gives up after 10 attempts.
 */
export async function connectNats(options: ConnectNatsOptions): Promise<ManagedNatsConnection> {
  const { servers, name, logger, credentials } = options;
  logger.info({ servers, name, as: describeNatsCredentials(credentials) }, 'connecting to nats');
  const connectionOptions: ConnectionOptions = {
    servers,
    name,
    maxReconnectAttempts: -1,
    ...(options.firstConnectTimeoutMs === undefined
      ? { waitOnFirstConnect: true }
      : { waitOnFirstConnect: false, timeout: options.firstConnectTimeoutMs }),
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 2_000,
    // The client otherwise builds an Error (a stack trace) for every request and publish, in
    // case it later times out: 7 % of the session service's CPU while a restart publishes
    // its refreshes. Our logs name the subject and the operation that failed instead.
    noAsyncTraces: true,
    ...(credentials ? { authenticator: natsAuthenticator(credentials) } : {}),
    ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
  };
  // transport-node's types re-export nats-core through an `exports` subpath that this
  // tsconfig's node10 resolution cannot see, so its return type is restated here.
  const nc = (await connect(connectionOptions)) as NatsConnection;
  logger.info({ server: nc.getServer() }, 'nats connected');
  return new ManagedNatsConnection(nc, logger);
}
