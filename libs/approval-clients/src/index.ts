export * from './approval-client';
export * from './approval-clients.repository';
export * from './client-key';
export { APPROVAL_API_MIGRATIONS } from './migrations';
