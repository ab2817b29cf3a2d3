import { PLATFORMS, type Platform } from '@tollgate/protocol';
import type { ApprovalClient } from '@tollgate/approval-clients';
import { type OptionValues, UsageError } from '../cli-command';

// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const MAX_ID = 200;
const MAX_APPROVERS = 20;

export function platformOf(values: OptionValues): Platform {
  const raw = values.platform;
  const platform = PLATFORMS.find((p) => p === raw);
  if (platform === undefined)
    throw new UsageError(`--platform must be one of ${PLATFORMS.join(', ')}`);
  return platform;
}

/** An id as the platform issues it; `allowEmpty` for a Discord DM's workspace and no thread. */
export function identifierOf(
  values: OptionValues,
  name: string,
  { required, allowEmpty = false }: { required: boolean; allowEmpty?: boolean },
): string | undefined {
  const raw = values[name];
  if (raw === undefined) {
    if (required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  if (typeof raw !== 'string') throw new UsageError(`--${name} takes a value`);
  if (raw === '' && !allowEmpty) throw new UsageError(`--${name} must not be empty`);
  if (raw.length > MAX_ID || UNSTORABLE.test(raw))
    throw new UsageError(`--${name} must be at most ${MAX_ID} storable characters`);
  return raw;
}

export function approversOf(values: OptionValues, { required }: { required: boolean }): string[] {
  const raw = values.approver as unknown;
  const list: string[] =
    raw === undefined ? [] : Array.isArray(raw) ? (raw as string[]) : [raw as string];
  if (required && list.length === 0) throw new UsageError('at least one --approver is required');
  for (const id of list) {
    if (id === '' || id.length > MAX_ID || UNSTORABLE.test(id))
      throw new UsageError(`--approver ${JSON.stringify(id)} is not a person id`);
  }
  if (new Set(list).size > MAX_APPROVERS)
    throw new UsageError(`at most ${MAX_APPROVERS} approvers per client`);
  return list;
}

export function webhookOf(values: OptionValues): string | undefined {
  const raw = values.webhook;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new UsageError('--webhook takes a URL');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError('--webhook must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--webhook must be an http:// or https:// URL');
  return raw;
}

export function nameOf(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '' || raw.length > 100 || UNSTORABLE.test(raw))
    throw new UsageError('the client name must be 1–100 characters');
  return raw;
}

/** One client for `clients list`, secrets left out. */
export function clientSummary(client: ApprovalClient): Record<string, unknown> {
  return {
    id: client.id,
    name: client.name,
    platform: client.platform,
    workspace: client.workspaceId,
    conversations: client.conversations.map((c) => ({ channel: c.channelId, thread: c.threadId })),
    approvers: client.approvers,
    onBehalfOf: client.onBehalfOf,
    webhook: client.webhookUrl,
    createdAt: client.createdAt.toISOString(),
    revokedAt: client.revokedAt?.toISOString() ?? null,
  };
}

export function clientLine(client: ApprovalClient): string {
  const routes = client.conversations
    .map((c) => (c.threadId === '' ? c.channelId : `${c.channelId}/${c.threadId}`))
    .join(',');
  return [
    client.id,
    JSON.stringify(client.name),
    `${client.platform}:${client.workspaceId}`,
    `routes=${routes}`,
    `approvers=${client.approvers.join(',')}`,
    client.webhookUrl === null ? 'no webhook' : `webhook=${client.webhookUrl}`,
    client.revokedAt === null ? 'active' : `revoked ${client.revokedAt.toISOString()}`,
  ].join('  ');
}
