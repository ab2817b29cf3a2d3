// The pure readers of a Slack call's arguments: how the body becomes args, and how message
// content, metadata, a history window and a page are read from them the way Slack reads them.
// No state lives here, so the message store and the HTTP front share them without coupling.
import type { SlackBlock } from './slack-blocks';
import { validateBlocks } from './slack-block-limits';
import type { SlackApiCall, SlackArgs, SlackMetadata } from './slack-api.types';

export type SlackResult = { ok: boolean; [key: string]: unknown };
type Content = {
  text: string;
  blocks: SlackBlock[] | undefined;
  attachments: unknown[] | undefined;
};

const JSON_FIELDS = ['blocks', 'attachments', 'metadata', 'view'] as const;
const MAX_TEXT = 40_000;
const DEFAULT_PAGE = 100;

export function readContent(args: SlackArgs): Content | SlackResult {
  const text = str(args.text) ?? '';
  let blocks: SlackBlock[] | undefined;
  if (args.blocks !== undefined) {
    if (!Array.isArray(args.blocks)) return { ok: false, error: 'invalid_blocks_format' };
    const problems = validateBlocks(args.blocks);
    if (problems.length > 0) {
      return {
        ok: false,
        error: 'invalid_blocks',
        errors: problems,
        response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
      };
    }
    blocks = args.blocks.length > 0 ? (args.blocks as SlackBlock[]) : undefined;
  }
  let attachments: unknown[] | undefined;
  if (args.attachments !== undefined) {
    if (!Array.isArray(args.attachments)) return { ok: false, error: 'invalid_attachments' };
    attachments = args.attachments.length > 0 ? args.attachments : undefined;
  }
  if (text === '' && !blocks && !attachments) return { ok: false, error: 'no_text' };
  if (text.length > MAX_TEXT) return { ok: false, error: 'msg_too_long' };
  return { text, blocks, attachments };
}

/** `{}` is how a caller clears metadata on `chat.update`; anything else must be well formed. */
export function readMetadata(value: unknown): SlackMetadata | undefined | 'invalid' {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'invalid';
  const candidate = value as Partial<SlackMetadata>;
  if (Object.keys(candidate).length === 0) return undefined;
  const payload = candidate.event_payload;
  if (typeof candidate.event_type !== 'string' || typeof payload !== 'object' || payload === null) {
    return 'invalid';
  }
  return { event_type: candidate.event_type, event_payload: payload };
}

/**
 * `oldest` / `latest` as Slack reads them: ts bounds, exclusive unless `inclusive` is set. Only
 * the time window narrows the read; the cursor then pages within it.
 */
export function inWindow(args: SlackArgs): (message: { ts: string }) => boolean {
  const oldest = str(args.oldest);
  const latest = str(args.latest);
  const inclusive = flag(args.inclusive);
  return (message) => {
    const ts = Number(message.ts);
    if (oldest !== undefined && (inclusive ? ts < Number(oldest) : ts <= Number(oldest))) {
      return false;
    }
    if (latest !== undefined && (inclusive ? ts > Number(latest) : ts >= Number(latest))) {
      return false;
    }
    return true;
  };
}

export function paginate(items: unknown[], args: SlackArgs): SlackResult {
  const limit = Number(args.limit ?? DEFAULT_PAGE) || DEFAULT_PAGE;
  const cursor = str(args.cursor);
  let offset = 0;
  if (cursor !== undefined && cursor !== '') {
    const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
    if (!match) return { ok: false, error: 'invalid_cursor' };
    offset = Number(match[1]);
  }
  const page = items.slice(offset, offset + limit);
  const hasMore = offset + limit < items.length;
  const next = hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
  return { ok: true, messages: page, has_more: hasMore, response_metadata: { next_cursor: next } };
}

/**
 * The SDK sends form fields and JSON-stringifies every non-scalar argument into one field;
 * Slack also accepts JSON bodies. Both end up as the same args.
 */
export function parseArgs(
  contentType: string | undefined,
  raw: string,
  query: URLSearchParams,
): { args: SlackArgs; encoding: SlackApiCall['encoding'] } {
  const args: SlackArgs = Object.fromEntries(query);
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') {
    const body: unknown = raw === '' ? {} : safeJson(raw);
    if (typeof body === 'object' && body !== null) Object.assign(args, body);
    return { args, encoding: 'json' };
  }
  if (raw === '') return { args, encoding: 'none' };
  Object.assign(args, Object.fromEntries(new URLSearchParams(raw)));
  for (const field of JSON_FIELDS) {
    const value = args[field];
    // An unparsable string stays a string so the method answers Slack's format error.
    if (typeof value === 'string') args[field] = safeJson(value) ?? value;
  }
  return { args, encoding: 'form' };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

export function byTs(a: { ts: string }, b: { ts: string }): number {
  return Number(a.ts) - Number(b.ts);
}
