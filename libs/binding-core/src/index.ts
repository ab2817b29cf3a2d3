export * from './platform-adapter.port';

export * from './prompt/prompt-state';
export * from './prompt/prompt-event';
export * from './prompt/prompt-decision';
export * from './prompt/prompt-lifecycle.decider';
export * from './prompt/prompt-lifecycle.errors';
export * from './prompt/prompt-ref';
export { POST_NONCE_PATTERN } from './prompt/post-nonce';

export * from './journal/binding-journal.migration';
export * from './journal/data-source-access';
export * from './journal/prompt-journal.port';
export * from './journal/prompt-journal.repository';
export * from './journal/delivered-outputs.port';
export * from './journal/delivered-outputs.repository';
export * from './journal/delivered-outputs.housekeeping';
export * from './journal/cleared-prompts.housekeeping';
export * from './journal/known-sessions.port';
export * from './journal/known-sessions.repository';
export * from './journal/owed-refreshes.port';
export * from './journal/owed-refreshes.repository';
export * from './journal/owed-refreshes.migration';

export * from './outputs/effect-failure';
export * from './outputs/handle-output.usecase';
export * from './outputs/owed-refresh.sweeper';
export * from './outputs/binding-outputs.controller';
export * from './pacing/rate-limit-pacer';
export * from './pacing/output-priority';

export * from './inbound/command-publisher.port';
export * from './inbound/publish-deadline';
export * from './inbound/jetstream-command.publisher';
export * from './inbound/forward-click.usecase';
export * from './inbound/edit-form';
export * from './inbound/open-edit-form.usecase';
export * from './inbound/forward-message.usecase';
export * from './inbound/text-answer.rules';
export * from './inbound/has-session.query';

export * from './binding-core.module';
export * from './binding-core.settings';
export * from './binding-core.tokens';
export * from './binding-output.consumer';
export * from './binding-provision';
export * from './replica-id';
export * from './platform-call-timeout';
export * from './inbound/signed-request.guard';
export * from './rendering/prompt-status';
export * from './rendering/prompt-tally';
export * from './rendering/prompt-text-fit';
export * from './rendering/untrusted-text';
export * from './inbound/inbound-fields.schema';
export * from './rendering/platform-safe-text';
