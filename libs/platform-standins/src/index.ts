// Local stand-ins of the chat platforms' APIs, and the signed requests those platforms send.
// Product code: `npm start` runs them so the bindings work with no account, and the tests run
// the same ones, each proven against the platform's official SDK by the specs beside it.
export * from './local-http-server';
export * from './fault-queue';

export * from './slack-api.fake';
export * from './slack-blocks';
export * from './slack-block-limits';
export * from './slack-inbound.payloads';
export * from './slack-signing';
export * from './slack-views.fake';

export * from './discord-api.fake';
export * from './discord-signing';
export * from './discord-modals.fake';

export * from './mattermost-api.fake';
export * from './mattermost-inbound.payloads';
export * from './mattermost-dialogs.fake';

export * from './openai-api.fake';
