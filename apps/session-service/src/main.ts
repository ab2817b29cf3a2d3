import { bootstrapService } from '@tollgate/service-runtime';
import { SessionServiceModule } from './session-service.module';
import { loadSessionServiceConfig } from './session-service.config';

void bootstrapService({
  service: 'session-service',
  loadConfig: loadSessionServiceConfig,
  rootModule: (config, logger) => SessionServiceModule.forRoot(config, logger),
});
