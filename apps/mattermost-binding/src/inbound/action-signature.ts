import { createHmac, timingSafeEqual } from 'node:crypto';
import { isStorableIdentifier } from '@tollgate/protocol';

/** What a Tollgate button's `integration.context` carries (docs/protocol.md §5, revised 2026-11-30). */
export interface ActionContext {
  readonly sessionId: string;
  readonly callId: string;
  readonly optionKey: string;
  /** The post's nonce: 32 hex characters, new for every post of the prompt. */
  readonly nonce: string;
  /** HMAC-SHA256 (hex) with MATTERMOST_ACTION_SECRET over `<sessionId>\n<callId>\n<optionKey>\n<nonce>`. */
  readonly sig: string;
}

export type SignedFields = Omit<ActionContext, 'sig'>;

const NONCE_PATTERN = /^[0-9a-f]{32}$/;

/**
 * Mattermost signs nothing it POSTs to an integration URL; it only keeps the action's
 * `context` away from clients (it strips `integration` from every post it returns). So the
 * context carries its own HMAC, and a click is believed only when that HMAC checks out. The
 * nonce ties the context to one post: a context captured from it answers nothing once the
 * journal tracks another post, or none.
 */
export function signAction(secret: string, fields: SignedFields): string {
  return createHmac('sha256', secret)
    .update(`${fields.sessionId}\n${fields.callId}\n${fields.optionKey}\n${fields.nonce}`, 'utf8')
    .digest('hex');
}

export type ActionVerdict =
  | { readonly ok: true; readonly context: ActionContext }
  | { readonly ok: false; readonly reason: string };

/** Reads and checks a click's context; anything missing, malformed or mis-signed is refused. */
export function verifyActionContext(secret: string, context: unknown): ActionVerdict {
  if (typeof context !== 'object' || context === null) {
    return { ok: false, reason: 'missing_context' };
  }
  const { sessionId, callId, optionKey, nonce, sig } = context as Record<string, unknown>;
  if (
    typeof sessionId !== 'string' ||
    typeof callId !== 'string' ||
    typeof optionKey !== 'string' ||
    !sessionId ||
    !callId ||
    !optionKey
  ) {
    return { ok: false, reason: 'incomplete_context' };
  }
  // Signed is not storable: ids the journal cannot hold (docs/protocol.md §1.2) are refused
  // here, before any lookup could take them to PostgreSQL.
  if (![sessionId, callId, optionKey].every(isStorableIdentifier)) {
    return { ok: false, reason: 'invalid_context' };
  }
  if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce)) {
    return { ok: false, reason: 'missing_nonce' };
  }
  if (typeof sig !== 'string' || !/^[0-9a-f]{64}$/i.test(sig)) {
    return { ok: false, reason: 'missing_signature' };
  }
  const expected = Buffer.from(signAction(secret, { sessionId, callId, optionKey, nonce }), 'hex');
  const given = Buffer.from(sig, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  return { ok: true, context: { sessionId, callId, optionKey, nonce, sig } };
}
