export * from './carried-context';
export * from './spans';
export * from './start-telemetry';
export * from './trace-headers';
export { tracingEnabled } from './tracing-switch';
