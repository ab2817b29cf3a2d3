import { bootstrapService } from '@tollgate/service-runtime';
import { MATTERMOST_ENDPOINTS } from './inbound/mattermost-endpoints';
import { MattermostBindingModule } from './mattermost-binding.module';
import { loadMattermostBindingConfig } from './mattermost-binding.config';

void bootstrapService({
  service: 'mattermost-binding',
  loadConfig: loadMattermostBindingConfig,
  inboundEndpoints: Object.values(MATTERMOST_ENDPOINTS),
  rootModule: (config, logger) => MattermostBindingModule.forRoot(config, logger),
});
