// The stream and consumer shapes and the dead-letter headers are the wire contract's;
// messaging provisions and settles by them but never defines them.
export { type ConsumerDefinition, DLQ_HEADERS, type StreamDefinition } from '@tollgate/protocol';
