import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';

/**
 * Discord signs each interaction it POSTs to an app's endpoint with the app's Ed25519 key:
 * `X-Signature-Ed25519` = hex signature over `<timestamp><raw body>`, and
 * `X-Signature-Timestamp` = the timestamp (seconds). These helpers play Discord's part.
 */
export interface DiscordKeyPair {
  readonly privateKey: KeyObject;
  /** The 32-byte raw public key in hex, as the developer portal shows it (DISCORD_PUBLIC_KEY). */
  readonly publicKeyHex: string;
}

export function generateDiscordKeyPair(): DiscordKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKey, publicKeyHex: Buffer.from(jwk.x!, 'base64url').toString('hex') };
}

/** PKCS#8 framing of a raw 32-byte Ed25519 seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A key pair derived from a phrase: the same on every run, so a binding started by hand can be
 * given its public key before the suite that signs with it starts (docs/contract.md). Only
 * for stand-ins: anyone who reads the phrase can sign.
 */
export function discordKeyPairFromPhrase(phrase: string): DiscordKeyPair {
  const seed = createHash('sha256').update(phrase).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return { privateKey, publicKeyHex: Buffer.from(jwk.x!, 'base64url').toString('hex') };
}

export function signDiscordRequest(
  privateKey: KeyObject,
  timestamp: number | string,
  body: string | Buffer,
): Record<string, string> {
  // A Buffer is signed as it is: the fuzz suite's mebibyte bodies skip a string round trip.
  const message =
    typeof body === 'string'
      ? Buffer.from(`${timestamp}${body}`)
      : Buffer.concat([Buffer.from(String(timestamp)), body]);
  const signature = sign(null, message, privateKey);
  return {
    'X-Signature-Ed25519': signature.toString('hex'),
    'X-Signature-Timestamp': String(timestamp),
  };
}

export interface DiscordUser {
  readonly id: string;
  readonly username?: string;
  readonly global_name?: string;
}

interface InteractionBase {
  readonly applicationId: string;
  /** Generated when omitted. */
  readonly id?: string;
  readonly token?: string;
}

interface Placed extends InteractionBase {
  /** Absent in a DM; the person is then `user` instead of `member.user`. */
  readonly guildId?: string;
  readonly channelId: string;
  readonly user: DiscordUser;
}

let idCounter = 0n;

/** A snowflake-shaped id no other interaction of this process has. */
export function nextSnowflake(): string {
  idCounter += 1n;
  return String(1_400_000_000_000_000_000n + BigInt(process.pid) * 1_000_000n + idCounter);
}

export function interactionToken(): string {
  return `itok_${randomBytes(24).toString('base64url')}`;
}

function base(interaction: Placed, type: number): Record<string, unknown> {
  return {
    id: interaction.id ?? nextSnowflake(),
    application_id: interaction.applicationId,
    type,
    token: interaction.token ?? interactionToken(),
    version: 1,
    channel_id: interaction.channelId,
    channel: { id: interaction.channelId, type: interaction.guildId === undefined ? 1 : 0 },
    ...(interaction.guildId === undefined
      ? { user: interaction.user, context: 1 }
      : {
          guild_id: interaction.guildId,
          member: { user: interaction.user, roles: [], permissions: '0' },
          context: 0,
        }),
    locale: 'en-US',
    app_permissions: '0',
    entitlements: [],
  };
}

/** PING (type 1): Discord checks the endpoint is up; the answer is `{type: 1}`. */
export function pingInteraction(applicationId: string): Record<string, unknown> {
  return {
    id: nextSnowflake(),
    application_id: applicationId,
    type: 1,
    token: interactionToken(),
    version: 1,
  };
}

/** APPLICATION_COMMAND (type 2): `/ask text:<text>`. */
export function askCommandInteraction(
  interaction: Placed & { readonly text: string },
): Record<string, unknown> {
  return {
    ...base(interaction, 2),
    data: {
      id: '1500000000000000001',
      name: 'ask',
      type: 1,
      options: [{ name: 'text', type: 3, value: interaction.text }],
    },
  };
}

/** MESSAGE_COMPONENT (type 3): a button click on a message. */
export function buttonClickInteraction(
  interaction: Placed & { readonly customId: string; readonly messageId: string },
): Record<string, unknown> {
  return {
    ...base(interaction, 3),
    data: { custom_id: interaction.customId, component_type: 2 },
    message: { id: interaction.messageId, channel_id: interaction.channelId },
  };
}
