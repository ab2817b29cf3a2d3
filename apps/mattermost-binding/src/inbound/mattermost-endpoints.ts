/** The routes Mattermost POSTs to; they also name this binding's inbound refusals. */
export const MATTERMOST_ENDPOINTS = {
  actions: '/mattermost/actions',
  commands: '/mattermost/commands',
  /** G2: "Edit & approve" dialog submissions. */
  dialogs: '/mattermost/dialogs',
} as const;
