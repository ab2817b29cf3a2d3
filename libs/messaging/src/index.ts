export * from './consumer-runner';
export * from './definitions';
export * from './delivered-message';
export * from './failures';
export * from './jetstream-publisher';
export * from './nats-connection';
export * from './retry-delay';
export * from './stream-provisioner';
