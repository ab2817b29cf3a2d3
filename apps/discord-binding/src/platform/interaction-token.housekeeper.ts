import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DatabaseClient, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { pruneInteractionTokens } from './interaction-tokens.housekeeping';

/** Tokens outlive their 15 minutes by at most this much. */
export const INTERACTION_TOKEN_PRUNE_INTERVAL_MS = 60_000;

/**
 * Prunes expired interaction tokens every minute, from every replica (a DELETE on an indexed
 * timestamp; replicas racing on it delete nothing twice), and once at start, so tokens left by
 * a binding that was down go as soon as one comes back.
 */
@Injectable()
export class InteractionTokenHousekeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly database: DatabaseClient,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    void this.database.whenReady().then((dataSource) => {
      if (this.stopped) return;
      const prune = () => {
        pruneInteractionTokens(dataSource).then(
          (pruned) => {
            if (pruned > 0) this.logger.debug({ pruned }, 'pruned expired interaction tokens');
          },
          (error: unknown) =>
            this.logger.warn({ err: error }, 'pruning expired interaction tokens failed'),
        );
      };
      prune();
      this.timer = setInterval(prune, INTERACTION_TOKEN_PRUNE_INTERVAL_MS);
      this.timer.unref();
    });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }
}
