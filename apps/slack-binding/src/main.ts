import { bootstrapService } from '@tollgate/service-runtime';
import { SlackBindingModule } from './slack-binding.module';
import { loadSlackBindingConfig } from './slack-binding.config';

void bootstrapService({
  service: 'slack-binding',
  loadConfig: loadSlackBindingConfig,
  rootModule: (config, logger) => SlackBindingModule.forRoot(config, logger),
});
