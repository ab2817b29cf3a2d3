// Writing an answer, shared by the Slack stand-in's API routes and its response_url route;
// kept apart so neither owns the other's plumbing.
import type { ServerResponse } from 'node:http';
import type { SlackResult } from './slack-api.args';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: SlackResult,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

export function sendText(res: ServerResponse, status: number, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(body);
}
