export * from './env-expansion';
export * from './mcp-servers.config';
export * from './plain-object';
export * from './restart-backoff';
export * from './tool-names';
export * from './upstream-call.error';
export * from './upstream-connection';
export * from './upstream-pool';
