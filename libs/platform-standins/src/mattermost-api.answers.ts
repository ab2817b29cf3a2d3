import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FakeMattermostPost } from './mattermost-api.types';

/**
 * What `MattermostApiFake` answers and how: the Answer every route handler returns, AppError
 * bodies, posts and post lists as the server puts them on the wire, and the JSON send. Pure
 * and shared by the post store, the people directory and the routes, so each answers alike.
 */

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** As the server returns a post: every action's `integration` stripped. */
export function wire(post: FakeMattermostPost): Record<string, unknown> {
  const props = structuredClone(post.props);
  for (const attachment of props.attachments ?? []) {
    for (const action of attachment.actions ?? []) delete action.integration;
  }
  return {
    id: post.id,
    create_at: post.create_at,
    update_at: post.update_at,
    edit_at: post.edits > 0 ? post.update_at : 0,
    delete_at: 0,
    is_pinned: false,
    user_id: post.user_id,
    channel_id: post.channel_id,
    root_id: post.root_id,
    original_id: '',
    message: post.message,
    type: '',
    props,
    hashtags: '',
    pending_post_id: '',
    reply_count: 0,
    metadata: {},
  };
}

export function postList(posts: FakeMattermostPost[]): Record<string, unknown> {
  const sorted = [...posts].sort((a, b) => b.create_at - a.create_at);
  return {
    order: sorted.map((p) => p.id),
    posts: Object.fromEntries(sorted.map((p) => [p.id, wire(p)])),
    next_post_id: '',
    prev_post_id: '',
    has_next: false,
  };
}

/** 26 lowercase letters and digits, like the server's NewId. */
export function newId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(26)].map((b) => alphabet[b % alphabet.length]).join('');
}

export function appError(status: number, id: string, message: string): Record<string, unknown> {
  return {
    id,
    message,
    detailed_error: '',
    request_id: newId(),
    status_code: status,
  };
}

export function ok(status: number, body: unknown): Answer {
  return { status, body };
}

export function error(status: number, id: string, message: string): Answer {
  return { status, body: appError(status, id, message) };
}

export function notFound(): Answer {
  return error(404, 'app.post.get.app_error', 'Unable to get the post.');
}

export function send(res: ServerResponse, answer: Answer): void {
  sendJson(res, answer.status, answer.body, answer.headers);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  // Exactly `application/json`: Client4 parses no other Content-Type.
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
