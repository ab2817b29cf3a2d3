import { randomBytes } from 'node:crypto';
import type { Platform } from '@tollgate/protocol';

/** A conversation a client may route to; `threadId` "" allows the channel and its threads. */
export interface AllowedConversation {
  readonly channelId: string;
  readonly threadId: string;
}

/** An agent client as the API and the CLI see it; never its key or key hash. */
export interface ApprovalClient {
  readonly id: string;
  readonly name: string;
  readonly platform: Platform;
  readonly workspaceId: string;
  /** The first is the default route. */
  readonly conversations: readonly AllowedConversation[];
  /** Every person who may be asked; all of them by default. */
  readonly approvers: readonly string[];
  readonly onBehalfOf: string | null;
  readonly webhookUrl: string | null;
  readonly webhookSecret: string | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/** `cli_` + 24 lower-case hex: a safe NATS subject token (the decision subjects carry it). */
export function newClientId(): string {
  return `cli_${randomBytes(12).toString('hex')}`;
}

export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Whether a route is one the client was created (or updated) with: same platform and
 * workspace, an allowed channel, and the allowed thread or, when the allowed entry names no
 * thread, any thread of that channel.
 */
export function routeAllowed(
  client: ApprovalClient,
  route: { platform: string; workspaceId: string; channelId: string; threadId: string },
): boolean {
  if (route.platform !== client.platform || route.workspaceId !== client.workspaceId) return false;
  return client.conversations.some(
    (c) => c.channelId === route.channelId && (c.threadId === '' || c.threadId === route.threadId),
  );
}

export function approversAllowed(client: ApprovalClient, approvers: readonly string[]): boolean {
  return approvers.every((id) => client.approvers.includes(id));
}
