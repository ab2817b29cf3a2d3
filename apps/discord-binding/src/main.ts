import { bootstrapService } from '@tollgate/service-runtime';
import { DiscordBindingModule } from './discord-binding.module';
import { loadDiscordBindingConfig } from './discord-binding.config';

void bootstrapService({
  service: 'discord-binding',
  loadConfig: loadDiscordBindingConfig,
  rootModule: (config, logger) => DiscordBindingModule.forRoot(config, logger),
});
