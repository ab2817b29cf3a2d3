import { bootstrapService } from '@tollgate/service-runtime';
import { SLACK_ENDPOINTS } from './inbound/slack-endpoints';
import { SlackBindingModule } from './slack-binding.module';
import { loadSlackBindingConfig } from './slack-binding.config';

void bootstrapService({
  service: 'slack-binding',
  loadConfig: loadSlackBindingConfig,
  inboundEndpoints: Object.values(SLACK_ENDPOINTS),
  rootModule: (config, logger) => SlackBindingModule.forRoot(config, logger),
});
