import { callKeyOf } from './call-key';
import { accepted, quoteValue, refused, type ParseResult } from './parse-result';
import { isPlatform, type Platform } from './platform';
import { APPROVAL_ID_PATTERN, CLIENT_ID_PATTERN } from './approval-ids';
import { isAgentSessionId, platformOfSessionId } from './session-id';
import { assertSubjectPrefix } from './subject-prefix';

export const COMMAND_KINDS = [
  'message',
  'response',
  'join',
  'undeliverable',
  'shown',
  'approval',
  'cancel',
] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

/** The kinds of the `api` token, and only of it (docs/protocol.md, 2026-12-01 (b)). */
export const API_COMMAND_KINDS = ['approval', 'cancel'] as const;
export type ApiCommandKind = (typeof API_COMMAND_KINDS)[number];

/** The command token only approval-api's NATS user may publish under. */
export const API_TOKEN = 'api';

export const OUTPUT_EVENTS = ['request', 'update', 'resolved', 'rejected'] as const;
export type OutputEvent = (typeof OUTPUT_EVENTS)[number];

/** `platform` is `api` for the approval API's commands, which address agent sessions. */
export type CommandSubject =
  | { readonly platform: Platform; readonly sessionId: string; readonly kind: CommandKind }
  | {
      readonly platform: typeof API_TOKEN;
      readonly sessionId: string;
      readonly kind: ApiCommandKind;
    };

export interface DecisionSubject {
  readonly clientId: string;
  readonly approvalId: string;
}

/** No call id here on purpose: a subject carries only the call key (docs/protocol.md §1). */
export type OutputSubject =
  | {
      readonly kind: 'call';
      readonly platform: Platform;
      readonly sessionId: string;
      readonly callKey: string;
      readonly event: OutputEvent;
    }
  | { readonly kind: 'text'; readonly platform: Platform; readonly sessionId: string };

export class InvalidSubjectTokenError extends Error {
  override readonly name = 'InvalidSubjectTokenError';
}

// What NATS forbids inside a token; an empty token is forbidden too.
const UNSAFE_TOKEN = /[\s.*>]/;
const CALL_KEY_TOKEN = /^(?:[A-Za-z0-9_-]{1,128}|h-[0-9a-f]{40})$/;

/**
 * Subject builders and parsers of docs/protocol.md §2 for one prefix. Builders throw on a token that
 * would change the subject's shape (a programming error: a dotted session id would publish to
 * a different subject); parsers never throw.
 */
export class Subjects {
  constructor(readonly prefix: string) {
    assertSubjectPrefix(prefix);
  }

  /**
   * The platform leads the session id so NATS permissions can confine a binding to
   * `<prefix>.cmd.<its platform>.>` (docs/protocol.md §2, revised 2026-11-30).
   */
  command(platform: Platform, sessionId: string, kind: CommandKind): string {
    if (isApiKind(kind)) {
      throw new InvalidSubjectTokenError(`kind ${kind} is only published under ${API_TOKEN}`);
    }
    return `${this.prefix}.cmd.${platformToken(platform, sessionId)}.${sessionId}.${kind}`;
  }

  /** An approval API command, for an agent session (docs/protocol.md, 2026-12-01 (b)). */
  apiCommand(sessionId: string, kind: ApiCommandKind): string {
    if (!isAgentSessionId(sessionId)) {
      throw new InvalidSubjectTokenError(`${quoteValue(sessionId)} is not an agent session id`);
    }
    return `${this.prefix}.cmd.${API_TOKEN}.${sessionId}.${kind}`;
  }

  /** Everything approval-api may publish. */
  apiCommandFilter(): string {
    return `${this.prefix}.cmd.${API_TOKEN}.>`;
  }

  /** Where the session service publishes an approval's one decision event. */
  decision(clientId: string, approvalId: string): string {
    if (!CLIENT_ID_PATTERN.test(clientId) || !APPROVAL_ID_PATTERN.test(approvalId)) {
      throw new InvalidSubjectTokenError(
        `${quoteValue(clientId)} / ${quoteValue(approvalId)} is not a client and approval id`,
      );
    }
    return `${this.prefix}.decision.${clientId}.${approvalId}`;
  }

  decisionsAll(): string {
    return `${this.prefix}.decision.>`;
  }

  /** Everything the session-service consumes. */
  commandFilter(): string {
    return `${this.prefix}.cmd.>`;
  }

  /** Every command one platform's binding may publish. */
  platformCommandFilter(platform: Platform): string {
    return `${this.prefix}.cmd.${platform}.>`;
  }

  callOutput(platform: Platform, sessionId: string, callId: string, event: OutputEvent): string {
    return `${this.outputBase(platform, sessionId)}.call.${callKeyOf(callId)}.${event}`;
  }

  textOutput(platform: Platform, sessionId: string): string {
    return `${this.outputBase(platform, sessionId)}.text`;
  }

  /** Everything one platform's binding consumes. */
  outputFilter(platform: Platform): string {
    return `${this.prefix}.out.${platform}.>`;
  }

  outputsAll(): string {
    return `${this.prefix}.out.>`;
  }

  dlq(service: string): string {
    if (service === '' || UNSAFE_TOKEN.test(service)) {
      throw new InvalidSubjectTokenError(`service ${quoteValue(service)} is not a subject token`);
    }
    return `${this.prefix}.dlq.${service}`;
  }

  dlqAll(): string {
    return `${this.prefix}.dlq.>`;
  }

  /**
   * Where an operator's replay of the DLQ message at `dlqSeq` is recorded. Two tokens after
   * `dlq`, so it can never be a service's dead-letter subject (`<prefix>.dlq.<service>`).
   */
  dlqReplayMarker(dlqSeq: number): string {
    if (!Number.isSafeInteger(dlqSeq) || dlqSeq < 1) {
      throw new InvalidSubjectTokenError(`DLQ sequence ${dlqSeq} is not a positive integer`);
    }
    return `${this.prefix}.dlq.replayed.${dlqSeq}`;
  }

  dlqReplayMarkerAll(): string {
    return `${this.prefix}.dlq.replayed.*`;
  }

  parseDecisionSubject(subject: string): ParseResult<DecisionSubject> {
    const tokens = this.tokensAfter(subject, 'decision');
    if (tokens?.length === 2) {
      const [clientId, approvalId] = tokens as [string, string];
      if (CLIENT_ID_PATTERN.test(clientId) && APPROVAL_ID_PATTERN.test(approvalId)) {
        return accepted({ clientId, approvalId });
      }
    }
    return invalid(subject, `${this.prefix}.decision.<clientId>.<approvalId>`);
  }

  parseCommandSubject(subject: string): ParseResult<CommandSubject> {
    const tokens = this.tokensAfter(subject, 'cmd');
    if (tokens === undefined || tokens.length !== 3) {
      return invalid(subject, `${this.prefix}.cmd.<platform>.<sessionId>.<kind>`);
    }
    const [platform, sessionId, kind] = tokens as [string, string, string];
    if (platform === API_TOKEN) {
      return parseApiCommandSubject(subject, sessionId, kind);
    }
    if (!isPlatform(platform)) {
      return refused('invalid_subject', `subject ${quoteSubject(subject)}: unknown platform`);
    }
    const sessionPlatform = platformOfSessionId(sessionId);
    if (sessionPlatform === undefined) {
      return refused('invalid_subject', `subject ${quoteSubject(subject)}: not a session id`);
    }
    // Both tokens are well formed but name different platforms: a binding allowed to publish
    // for one platform is addressing another's session.
    if (sessionPlatform !== platform) {
      return refused(
        'platform_mismatch',
        `subject ${quoteSubject(subject)}: session id of platform ${sessionPlatform} under platform ${platform}`,
      );
    }
    const commandKind = COMMAND_KINDS.find((known) => known === kind);
    if (commandKind === undefined || isApiKind(commandKind)) {
      return refused('invalid_subject', `subject ${quoteSubject(subject)}: unknown command kind`);
    }
    return accepted({ platform, sessionId, kind: commandKind });
  }

  parseOutputSubject(subject: string): ParseResult<OutputSubject> {
    const tokens = this.tokensAfter(subject, 'out');
    const shape = `${this.prefix}.out.<platform>.<sessionId>.(call.<callKey>.<event>|text)`;
    if (tokens === undefined || (tokens.length !== 3 && tokens.length !== 5)) {
      return invalid(subject, shape);
    }
    const [platform, sessionId] = tokens as [string, string];
    if (!isPlatform(platform)) {
      return refused('invalid_subject', `subject ${quoteSubject(subject)}: unknown platform`);
    }
    if (platformOfSessionId(sessionId) !== platform) {
      return refused(
        'invalid_subject',
        `subject ${quoteSubject(subject)}: not a session id of platform ${platform}`,
      );
    }
    if (tokens.length === 3) {
      return tokens[2] === 'text'
        ? accepted({ kind: 'text', platform, sessionId })
        : invalid(subject, shape);
    }
    const [, , call, callKey, event] = tokens as [string, string, string, string, string];
    const outputEvent = OUTPUT_EVENTS.find((known) => known === event);
    if (call !== 'call' || !CALL_KEY_TOKEN.test(callKey) || outputEvent === undefined) {
      return invalid(subject, shape);
    }
    return accepted({ kind: 'call', platform, sessionId, callKey, event: outputEvent });
  }

  private outputBase(platform: Platform, sessionId: string): string {
    return `${this.prefix}.out.${platformToken(platform, sessionId)}.${sessionId}`;
  }

  private tokensAfter(subject: string, family: string): string[] | undefined {
    const head = `${this.prefix}.${family}.`;
    return subject.startsWith(head) ? subject.slice(head.length).split('.') : undefined;
  }
}

/**
 * Under `api` only agent sessions and only the approval API's kinds: approval-api may then
 * address no conversation's session, and a binding (which cannot publish under `api`) no
 * approval.
 */
function parseApiCommandSubject(
  subject: string,
  sessionId: string,
  kind: string,
): ParseResult<CommandSubject> {
  if (!isAgentSessionId(sessionId)) {
    return refused('invalid_subject', `subject ${quoteSubject(subject)}: not an agent session id`);
  }
  const apiKind = API_COMMAND_KINDS.find((known) => known === kind);
  if (apiKind === undefined) {
    return refused('invalid_subject', `subject ${quoteSubject(subject)}: not an api command kind`);
  }
  return accepted({ platform: API_TOKEN, sessionId, kind: apiKind });
}

function isApiKind(kind: CommandKind): kind is ApiCommandKind {
  return API_COMMAND_KINDS.some((known) => known === kind);
}

/** The platform, once the session id is known to be one of its sessions (so a safe token). */
function platformToken(platform: Platform, sessionId: string): Platform {
  if (platformOfSessionId(sessionId) !== platform) {
    throw new InvalidSubjectTokenError(
      `session id ${quoteValue(sessionId)} was not derived for platform ${platform}`,
    );
  }
  return platform;
}

function invalid(subject: string, shape: string): ParseResult<never> {
  return refused('invalid_subject', `subject ${quoteSubject(subject)} does not match ${shape}`);
}

function quoteSubject(subject: string): string {
  return quoteValue(subject, 160);
}
