/** The routes Slack POSTs to; they also name this binding's inbound refusals. */
export const SLACK_ENDPOINTS = {
  events: '/slack/events',
  interactions: '/slack/interactions',
} as const;
