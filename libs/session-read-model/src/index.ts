// The session-service's schema and what reads it: the journaled events, the session state
// they fold into (`evolve`), the approval turn, the load of a session as of its last commit,
// the grants tables and the migrations. The service and the operator CLI both use these, so
// what an operator is shown is what the service decides on (no app reads another's src/).
export * from './session-event';
export * from './session-state';
export * from './approval-turn';
// G1: the tally a pending prompt keeps; evolve counts approvals with it, the service decides.
export * from './approval-tally.decider';
export { IllegalApprovalTransition } from './approval-turn.errors';
export { hasOwnEntry, ownEntry, setOwnEntry } from './own-entry';
export type { SubAgentParent } from './sub-agent-parent';
export * from './session-load';
export * from './tool-grants.repository';
export { SESSION_SCHEMA_MIGRATIONS } from './session-schema.migrations';
export * from './migrations/session-journal.migration';
export * from './migrations/command-ledger-platform.migration';
export * from './migrations/prompt-timers.migration';
export * from './migrations/tool-grants.migration';
export * from './migrations/tool-grants-per-person.migration';
export * from './migrations/tool-grants-per-client.migration';
export * from './migrations/session-grants.migration';
export * from './migrations/tool-grants-scoped.migration';
export * from './migrations/grant-ends-audited.migration';
export * from './migrations/outbox-traceparent.migration';
