/** The Mattermost binding's validated config, for its Mattermost-only providers. */
export const MATTERMOST_CONFIG = Symbol('MATTERMOST_CONFIG');
