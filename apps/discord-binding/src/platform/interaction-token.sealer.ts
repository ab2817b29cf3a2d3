import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals interaction tokens for the database (AES-256-GCM), so that a dump or a backup of it
 * hands out no live token. The key is derived from the bot token: whoever holds that can act
 * as the bot anyway, and no further secret has to be configured or rotated. A rotated bot
 * token makes the tokens already kept unreadable, which only sends their notices by DM for
 * the quarter hour they had left. Each token is bound to its row (person and channel), so
 * one moved to another row does not open.
 */
export class InteractionTokenSealer {
  private readonly key: Buffer;

  constructor(botToken: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', botToken, 'tollgate', 'discord interaction tokens at rest', 32),
    );
  }

  seal(token: string, boundTo: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  /** The token, or undefined if it was sealed under another key or for another row. */
  open(sealed: Buffer, boundTo: string): string | undefined {
    if (sealed.length <= IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const token = Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
      return token.toString('utf8');
    } catch {
      return undefined;
    }
  }
}
