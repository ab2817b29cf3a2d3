import 'reflect-metadata';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { startTelemetry, type Telemetry } from '@tollgate/telemetry';
import type { Logger } from 'pino';
import type { BaseConfig, ServiceName } from './base-config';
import { ConfigError } from './config-error';
import { FatalFailures } from './fatal-failures';
import { configuredSecrets } from './configured-secrets';
import { installInboundBodyParsing } from './inbound-body.middleware';
import { InboundRefusals } from './inbound-refusals.service';
import { createLogger, PinoNestLogger } from './logger';
import { stampArrival } from './request-arrival';
import { ConsumerHost } from './consumer.host';
import { JetStreamConsumers } from './jetstream-consumers.registry';
import { JetStreamSettlementFilter } from './jetstream-settlement.filter';
import { JetStreamTransport } from './jetstream.transport';
import { ParentWatch } from './parent-watch';

export interface ServiceDefinition<C extends BaseConfig> {
  service: ServiceName;
  /** May be async: a config part that needs a heavy library can load it only when asked for. */
  loadConfig(env: NodeJS.ProcessEnv): C | Promise<C>;
  rootModule(config: C, logger: Logger): DynamicModule;
  /** The POST routes the service serves to the outside, e.g. `/slack/events`. */
  inboundEndpoints?: readonly string[];
  /** Overrides of the inbound body parsing (installInboundBodyParsing's options). */
  inboundBody?: { limitBytes?: number; refusalBody?: (reason: string) => object };
}

/** Grace beyond the drain deadline for closing connections before the process is forced out. */
const CLOSE_GRACE_MS = 3_000;

/**
 * Starts a service: validated config (exit 1 naming the variable), JSON logs, HTTP first so
 * health answers while dependencies connect in the background, and a SIGTERM/SIGINT path
 * that drains within TOLLGATE_DRAIN_MS and exits 0 — taken too when the `npm start` that ran
 * the service is gone (ParentWatch).
 */
export async function bootstrapService<C extends BaseConfig>(
  definition: ServiceDefinition<C>,
): Promise<void> {
  const parent = new ParentWatch();
  let config: C;
  try {
    config = await definition.loadConfig(process.env);
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : String(error);
    process.stderr.write(`${definition.service}: ${message}\n`);
    process.exit(1);
  }

  const logger = createLogger(definition.service, config.LOG_LEVEL, {
    secrets: configuredSecrets(config),
  });
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    process.exit(1);
  });

  // Before the app is built: every span the service makes goes through the SDK started here.
  let telemetry: Telemetry | undefined;
  try {
    telemetry = await startTelemetry(definition.service, process.env);
  } catch (error) {
    logger.error({ err: error }, 'tracing could not start; running without it');
  }
  if (telemetry !== undefined) logger.info('tracing on: exporting spans over OTLP/HTTP');

  const app = await NestFactory.create<NestExpressApplication>(
    definition.rootModule(config, logger),
    { logger: new PinoNestLogger(logger), rawBody: true, bodyParser: false },
  );
  // First: a platform's deadline runs from the request's arrival, body and guards included.
  app.use(stampArrival);
  installInboundBodyParsing(app, {
    endpoints: definition.inboundEndpoints ?? [],
    refusals: app.get(InboundRefusals),
    ...definition.inboundBody,
  });
  // A service reports what it cannot work past; ending the process is this entry point's job.
  optionalProvider(() => app.get(FatalFailures))?.onFatal((failure) => {
    logger.fatal({ err: failure.cause }, `${failure.message}; exiting`);
    logger.flush();
    process.exit(1);
  });
  if (config.HOST === undefined) await app.listen(config.PORT);
  else await app.listen(config.PORT, config.HOST);
  logger.info({ port: config.PORT, host: config.HOST }, 'listening');
  // The durable consumers declared while the app started, fed to their @EventPattern handlers.
  const consumers = optionalProvider(() => app.get(JetStreamConsumers));
  const host = optionalProvider(() => app.get(ConsumerHost));
  if (consumers !== undefined && host !== undefined) {
    // Before connecting: the microservice's handlers take the app's global filters as they
    // are registered, which connectMicroservice does at once.
    app.useGlobalFilters(new JetStreamSettlementFilter(app.getHttpAdapter()));
    app.connectMicroservice<MicroserviceOptions>(
      { strategy: new JetStreamTransport(host, consumers) },
      { inheritAppConfig: true },
    );
    await app.startAllMicroservices();
  }

  let stopping = false;
  const stop = (why: { signal: NodeJS.Signals } | { parent: 'gone' }) => {
    if (stopping) return;
    stopping = true;
    logger.info({ ...why, drainMs: config.TOLLGATE_DRAIN_MS }, 'shutting down');
    const forced = setTimeout(() => {
      logger.error('shutdown overran its deadline; exiting');
      process.exit(1);
    }, config.TOLLGATE_DRAIN_MS + CLOSE_GRACE_MS);
    forced.unref();
    app
      .close()
      // The last spans (the drain's) are exported before the process leaves.
      .then(() => telemetry?.shutdown().catch(() => undefined))
      .then(
        () => {
          logger.info('stopped');
          logger.flush();
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', (signal) => stop({ signal }));
  process.once('SIGINT', (signal) => stop({ signal }));
  parent.whenGone(() => stop({ parent: 'gone' }));
}

/** A provider only some services have (the CLI-style ones run no consumers). */
function optionalProvider<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}
