import { bootstrapService } from '@tollgate/service-runtime';
import { DISCORD_ENDPOINTS } from './inbound/discord-endpoints';
import { DiscordBindingModule } from './discord-binding.module';
import { loadDiscordBindingConfig } from './discord-binding.config';

void bootstrapService({
  service: 'discord-binding',
  loadConfig: loadDiscordBindingConfig,
  inboundEndpoints: Object.values(DISCORD_ENDPOINTS),
  rootModule: (config, logger) => DiscordBindingModule.forRoot(config, logger),
});
