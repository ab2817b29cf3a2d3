import { bindingMigrations } from '@tollgate/binding-core';
import { DiscordInteractionTokens1764633600000 } from './platform/interaction-tokens.migration';
import { DiscordInteractionTokensSealed1764892800000 } from './platform/interaction-tokens-sealed.migration';

/** The binding core's tables, then this binding's own, in order; also run by `npm run migrate`. */
export const MIGRATIONS = bindingMigrations([
  DiscordInteractionTokens1764633600000,
  DiscordInteractionTokensSealed1764892800000,
]);
