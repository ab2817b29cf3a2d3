import { bootstrapService } from '@tollgate/service-runtime';
import { SessionServiceModule } from './session-service.module';
import { loadSessionServiceConfig } from './session-service.config';
import { withToolPolicy } from './tools/tool-policy.loader';
import { builtInTools } from './tools/tool-registry';

void bootstrapService({
  service: 'session-service',
  // The policy file is read with the environment: a bad one stops the start naming its line.
  loadConfig: (env) => withToolPolicy(loadSessionServiceConfig(env), builtInTools()),
  rootModule: (config, logger) => SessionServiceModule.forRoot(config, logger),
});
