import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * An agent client's API key: `tg_<key id>_<secret>`. The key id finds the one stored hash
 * to check (so a request costs one scrypt, not one per client); only the secret's scrypt
 * hash is stored, and the key is shown once, when it is made.
 */
export interface IssuedKey {
  readonly key: string;
  readonly keyId: string;
  readonly keyHash: string;
}

const KEY_PATTERN = /^tg_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
// OWASP's scrypt floor (N=2^17 is its first choice, at 128 MiB a call; this costs 16 MiB).
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const HASH_BYTES = 32;

export function issueKey(): Promise<IssuedKey> {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return hashSecret(secret).then((keyHash) => ({ key: `tg_${keyId}_${secret}`, keyId, keyHash }));
}

/** The key id and secret of a well-formed key, or undefined for anything else. */
export function parseKey(presented: string): { keyId: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(presented);
  const [, keyId, secret] = match ?? [];
  return keyId === undefined || secret === undefined ? undefined : { keyId, secret };
}

/** Compares in constant time; a stored hash in any other format never matches. */
export async function secretMatches(secret: string, keyHash: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = keyHash.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(secret, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, SCRYPT);
  const { N, r, p } = SCRYPT;
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

function derive(
  secret: string,
  salt: Buffer,
  cost: { N: number; r: number; p: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, HASH_BYTES, { ...cost, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}
