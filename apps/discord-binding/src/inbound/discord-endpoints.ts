/** The route Discord POSTs to; it also names this binding's inbound refusals. */
export const DISCORD_ENDPOINTS = {
  interactions: '/discord/interactions',
} as const;
