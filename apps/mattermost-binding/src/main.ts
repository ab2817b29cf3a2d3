import { bootstrapService } from '@tollgate/service-runtime';
import { MattermostBindingModule } from './mattermost-binding.module';
import { loadMattermostBindingConfig } from './mattermost-binding.config';

void bootstrapService({
  service: 'mattermost-binding',
  loadConfig: loadMattermostBindingConfig,
  rootModule: (config, logger) => MattermostBindingModule.forRoot(config, logger),
});
