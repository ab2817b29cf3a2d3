import { randomBytes } from 'node:crypto';

/** A short random token for isolating a test's NATS subject prefix or database schema. */
export function uniqueToken(label: string): string {
  return `${label}${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}
