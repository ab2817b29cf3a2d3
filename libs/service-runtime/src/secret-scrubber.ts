/** What a scrubbed secret reads as; safe inside a JSON string (no quote, no backslash). */
export const REDACTED = '[redacted]';

/**
 * Shorter configured values are left to the shapes below: scrubbing a four-letter password
 * everywhere would also censor the ordinary word it happens to be.
 */
export const MIN_SCRUBBED_SECRET_LENGTH = 6;

// Characters every bearer token we meet is made of (base64, base64url, hex, JWT dots).
const TOKEN = String.raw`[A-Za-z0-9._~+/=-]`;
// JSON keys whose string value is a credential, at any depth: `"Authorization": "Bot …"`,
// `"SLACK_BOT_TOKEN"`, `"client_secret"`, a Slack `response_url` (bearer-like), a request
// signature (replayable for minutes). Matched by the end of the key only: `token":` can only
// close a key, since a quote inside a JSON string is escaped.
const SECRET_KEY_END = String.raw`(?:authorization|token|secret|password|passwd|api[_-]?key|cookie|signature|response_url|credentials)"\s*:\s*`;
const JSON_STRING_BODY = String.raw`(?:[^"\\]|\\.)*`;

/**
 * Secret shapes, each `(kept prefix)secret`: the prefix stays so a line still says what was
 * there. They run on the serialized JSON line, so a secret inside a string — an error
 * message, a stack, a URL — is found as surely as one under a key.
 */
const SECRET_SHAPES: readonly string[] = [
  // "authorization": "Bearer …" (and cookie headers as arrays).
  String.raw`(${SECRET_KEY_END}")${JSON_STRING_BODY}(?=")`,
  String.raw`(${SECRET_KEY_END}\[")[^\]]*(?="\])`,
  // An HTTP credential wherever it is quoted: `Bot <token>`, `Bearer <token>`, `Basic …`.
  String.raw`(\b(?:Bot|Bearer|Basic)\s+)${TOKEN}{12,}`,
  // Slack tokens by their prefix.
  String.raw`()\bxox[abposer]-[A-Za-z0-9-]{6,}`,
  String.raw`()\bxapp-[A-Za-z0-9-]{6,}`,
  // Discord webhook and interaction tokens are path segments: /webhooks/<app id>/<token>.
  String.raw`(/(?:webhooks|interactions)/\d{5,25}/)[A-Za-z0-9._-]{16,}`,
  // Slack response URLs and incoming webhooks carry their secret in the path.
  String.raw`(hooks\.slack\.com/)[A-Za-z0-9/_-]+`,
  // scheme://user:password@host, for postgres, nats, http alike.
  String.raw`(://[^/\s:@"\\]{0,128}:)[^/\s@"\\]{1,256}(?=@)`,
  // ?token=…&password=… and their kin in query strings.
  String.raw`([?&](?:token|access_token|password|sslpassword|secret|api_key|apikey|key|sig|signature)=)[^&\s"#\\]+`,
  // JWTs (NATS user JWTs included) and NATS nkey seeds, wherever they turn up.
  String.raw`()\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`,
  String.raw`()\bS[UOANCAX][A-Z2-7]{54,}`,
];

/**
 * A function that censors every configured secret value and every secret-shaped string in a
 * serialized log line. One regular expression, built once, runs over the line: this is on the
 * path of every log line.
 */
export function createSecretScrubber(secrets: Iterable<string>): (line: string) => string {
  const literals = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SCRUBBED_SECRET_LENGTH) continue;
    // As it appears inside a JSON string, and as it appears percent-encoded in a URL.
    literals.add(JSON.stringify(secret).slice(1, -1));
    literals.add(encodeURIComponent(secret));
  }
  const alternatives = [
    // Longest first, so a secret containing another is censored whole.
    ...[...literals].sort((a, b) => b.length - a.length).map(escapeRegExp),
    ...SECRET_SHAPES,
  ];
  const pattern = new RegExp(alternatives.join('|'), 'gi');
  const groups = SECRET_SHAPES.length;
  const replace = (...args: unknown[]): string => {
    let prefix = '';
    for (let i = 1; i <= groups; i += 1) {
      if (typeof args[i] === 'string') {
        prefix = args[i] as string;
        break;
      }
    }
    return prefix + REDACTED;
  };
  return (line) => line.replace(pattern, replace);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
