/** The Slack binding's validated config, for its Slack-only providers. */
export const SLACK_CONFIG = Symbol('SLACK_CONFIG');
