/** The Discord binding's validated config, for its Discord-only providers. */
export const DISCORD_CONFIG = Symbol('DISCORD_CONFIG');
