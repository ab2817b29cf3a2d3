export * from './argument-constraint';
export * from './argument-edit.schema';
export * from './argument-scope';
export * from './approval-commands.schema';
export * from './approval-decided.schema';
export * from './approval-ids';
export * from './arguments-hash';
export * from './call-key';
export * from './commands.schema';
export * from './conversation.schema';
export * from './dlq-headers';
export * from './duration';
export {
  PROTOCOL_VERSION,
  callIdSchema,
  commandIdSchema,
  occurredAtSchema,
  outputIdProblem,
} from './envelope.schema';
export * from './json-arguments';
export * from './limits';
export { decodeJson, encodeMessage } from './message.codec';
export * from './message.parser';
export * from './message-subject';
export * from './option.schema';
export * from './output-id';
export * from './outputs.schema';
export * from './parse-result';
export * from './person.schema';
export * from './approver-group.schema';
export * from './platform';
export * from './principal.schema';
export * from './quorum.schema';
export * from './session-id';
export * from './standard-options';
export { isStorableIdentifier } from './storable-identifier';
export * from './streams';
export * from './subject-prefix';
export * from './subjects';
export * from './grant-offer';
