import fc from 'fast-check';
import type { KeyObject } from 'node:crypto';
import { signAction } from '../../apps/mattermost-binding/src/inbound/action-signature';
import {
  EDIT_INPUT_PREFIX,
  EDIT_MODAL_PREFIX,
} from '../../apps/discord-binding/src/rendering/discord-edit-modal.renderer';
import { EDIT_ELEMENT_PREFIX } from '../../apps/mattermost-binding/src/rendering/mattermost-edit-dialog.renderer';
import {
  EDIT_BLOCK_PREFIX,
  EDIT_CALLBACK_ID,
  EDIT_INPUT_ACTION,
} from '../../apps/slack-binding/src/rendering/slack-edit-modal.renderer';
import {
  askCommandInteraction,
  buttonClickInteraction,
  modalSubmitInteraction,
  signDiscordRequest,
  viewSubmissionPayload,
} from '@tollgate/platform-standins';
import { actionCallbackBody, slashCommandBody } from '@tollgate/platform-standins';
import { appMentionEvent, blockActionsPayload, eventCallback } from '@tollgate/platform-standins';
import { signSlackRequest } from '@tollgate/platform-standins';
import {
  formEncode,
  junkValue,
  mutate,
  mutations,
  rawFormJunk,
  safeText,
} from './junk.arbitraries';
import type { RawRequest } from './raw-http.client';

/** The cap every inbound endpoint enforces (docs/protocol.md §5). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export type Category =
  | 'valid'
  | 'replayed'
  | 'signed_junk'
  | 'signed_json'
  | 'malformed'
  | 'oversized'
  | 'wrong_type'
  | 'forged'
  | 'stale'
  | 'unsigned';

/** How the request proves its sender: as the platform would, falsely, too late, or not at all. */
export type Auth = 'valid' | 'forged' | 'stale' | 'none';

export interface FuzzCase {
  readonly endpoint: string;
  readonly category: Category;
  readonly request: RawRequest;
  /** Carries the platform's real signature or token: only then may anything be published. */
  readonly authentic: boolean;
  /** The statuses this request may get when the contract names them; every answer is < 500. */
  readonly expect?: readonly number[];
  /** Sent this many times in a row, as a captured request replayed. */
  readonly times: number;
  /** Command ids (docs/protocol.md §1) this request could publish if it is answered 2xx. */
  readonly commandIds: readonly string[];
}

interface Rendered {
  readonly contentType: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly authentic: boolean;
}

/** One inbound endpoint: a valid payload, how it is sent and signed, what it may publish. */
export interface EndpointTarget {
  readonly path: string;
  readonly template: fc.Arbitrary<unknown>;
  render(payload: unknown, auth: Auth): Rendered;
  /** Whether an answer to a valid, well-formed request is fixed by the contract. */
  readonly validStatuses?: readonly number[];
  commandIds(payload: unknown): string[];
  /** A body the parser takes but no one should send: form junk for form endpoints. */
  readonly rawJunk?: fc.Arbitrary<string>;
  /** Signs the exact bytes sent (Slack, Discord); Mattermost signs nothing of the body. */
  sign?(body: string | Buffer): Record<string, string>;
  /** A valid request that publishes a command, where the endpoint has one. */
  readonly marker?: fc.Arbitrary<unknown>;
  /** Whether `rawJunk` carries the credential itself (a Mattermost command's token). */
  readonly rawJunkAuthentic?: boolean;
}

const WRONG_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'text/html; charset=utf-8',
  'application/jsonx',
  '',
];

/** Every kind of hostile request for one endpoint, weighted towards validly signed junk. */
export function fuzzCases(target: EndpointTarget): fc.Arbitrary<FuzzCase> {
  const make = (
    category: Category,
    payload: unknown,
    auth: Auth,
    options: { expect?: readonly number[]; times?: number } = {},
  ): FuzzCase => {
    const rendered = target.render(payload, auth);
    return {
      endpoint: target.path,
      category,
      request: {
        path: target.path,
        headers: withType(rendered.headers, rendered.contentType),
        body: Buffer.from(rendered.body, 'utf8'),
      },
      authentic: rendered.authentic,
      ...(options.expect ? { expect: options.expect } : {}),
      times: options.times ?? 1,
      commandIds: target.commandIds(payload),
    };
  };
  const validStatuses = target.validStatuses;
  return fc.oneof(
    {
      weight: 4,
      arbitrary: target.template.map((p) =>
        make('valid', p, 'valid', validStatuses ? { expect: validStatuses } : {}),
      ),
    },
    {
      weight: 2,
      arbitrary: target.template.map((p) =>
        make('replayed', p, 'valid', {
          times: 2,
          ...(validStatuses ? { expect: validStatuses } : {}),
        }),
      ),
    },
    {
      weight: 40,
      arbitrary: fc
        .tuple(target.template, mutations)
        .map(([p, changes]) => make('signed_junk', mutate(p, changes), 'valid')),
    },
    {
      weight: 8,
      arbitrary: fc
        .oneof(fc.jsonValue({ maxDepth: 3 }), junkValue)
        .map((p) => make('signed_json', p, 'valid')),
    },
    {
      weight: 8,
      arbitrary: fc
        .tuple(target.template, fc.string({ unit: 'binary', maxLength: 300 }), fc.boolean())
        .map(([p, junk, signed]) => {
          // Not what the content type promises: a truncated body, or noise, signed or not.
          const rendered = target.render(p, signed ? 'valid' : 'none');
          const raw =
            junk.length % 2 === 0
              ? rendered.body.slice(0, junk.length % rendered.body.length)
              : junk;
          const body = rendered.contentType === 'application/json' ? `${raw}{` : raw;
          return resign(target, make('malformed', p, signed ? 'valid' : 'none'), body);
        }),
    },
    ...(target.rawJunk
      ? [
          {
            weight: 6,
            arbitrary: fc.tuple(target.template, target.rawJunk).map(([p, body]) => {
              const junk = resign(target, make('malformed', p, 'valid'), body);
              return target.rawJunkAuthentic ? { ...junk, authentic: true } : junk;
            }),
          },
        ]
      : []),
    {
      weight: 1,
      arbitrary: fc
        .tuple(target.template, fc.integer({ min: 1, max: 64 * 1024 }), fc.boolean())
        .map(([p, extra, chunked]) => {
          const base = make('oversized', p, 'valid', { expect: [413] });
          // Built and signed as bytes: a mebibyte string decoded, encoded and signed again
          // was ~5% of the test process's CPU for ~1% of its cases.
          const body = Buffer.allocUnsafe(base.request.body.length + BODY_LIMIT_BYTES + extra);
          body.fill(0x20, base.request.body.copy(body));
          const signed = resign(target, base, body);
          return { ...signed, request: { ...signed.request, chunked } };
        }),
    },
    {
      weight: 6,
      arbitrary: fc.tuple(target.template, fc.constantFrom(...WRONG_TYPES)).map(([p, type]) => {
        const base = make('wrong_type', p, 'valid', { expect: [415] });
        return {
          ...base,
          request: { ...base.request, headers: withType(base.request.headers, type) },
        };
      }),
    },
    {
      weight: 6,
      arbitrary: target.template.map((p) => make('forged', p, 'forged', { expect: [401] })),
    },
    {
      weight: 6,
      arbitrary: target.template.map((p) => make('stale', p, 'stale', { expect: [401] })),
    },
    {
      weight: 3,
      arbitrary: target.template.map((p) => make('unsigned', p, 'none', { expect: [401] })),
    },
  );
}

/**
 * A case with another body. Slack and Discord sign the bytes actually sent when the case was
 * signed; for Mattermost, whose proof lives inside the body, the new body proves nothing.
 */
function resign(target: EndpointTarget, base: FuzzCase, body: string | Buffer): FuzzCase {
  const headers = target.sign && base.authentic ? target.sign(body) : base.request.headers;
  return {
    ...base,
    authentic: target.sign !== undefined && base.authentic,
    request: {
      ...base.request,
      headers: withType(headers, base.request.headers['content-type'] ?? ''),
      body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    },
  };
}

function withType(headers: Record<string, string>, type: string): Record<string, string> {
  const copy = { ...headers };
  delete copy['content-type'];
  return type === '' ? copy : { ...copy, 'content-type': type };
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
/** Beyond the five-minute window in either direction. */
const STALE_OFFSET_SECONDS = 6 * 60;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** What a form field reads as on the server: formEncode writes a primitive as its text. */
function formText(value: unknown): string | undefined {
  return ['string', 'number', 'boolean'].includes(typeof value) || value === null
    ? safeText(String(value))
    : undefined;
}

function field(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>(
    (node, key) =>
      typeof node === 'object' && node !== null && Object.hasOwn(node, key)
        ? (node as Record<string, unknown>)[key]
        : undefined,
    value,
  );
}

const idNumber = fc.integer({ min: 1, max: 2 ** 40 });
const hex24 = fc.stringMatching(/^[0-9a-f]{24}$/);
const someText = fc.string({ maxLength: 60 }).map((t) => `hello ${t}`);

// ---------- Slack ----------

export function slackTargets(secret: string, teamId: string): EndpointTarget[] {
  const sign = (body: string | Buffer, auth: Auth): Record<string, string> => {
    switch (auth) {
      case 'valid':
        return signSlackRequest(secret, body, nowSeconds());
      case 'forged':
        return signSlackRequest(`${secret}-not`, body, nowSeconds());
      case 'stale':
        return signSlackRequest(secret, body, nowSeconds() - STALE_OFFSET_SECONDS);
      case 'none':
        return {};
    }
  };
  const mention = fc.tuple(idNumber, someText).map(([n, text]) =>
    eventCallback({
      teamId,
      eventId: `EvFUZZ${n}`,
      event: appMentionEvent({
        channelId: `CFUZZ${n}`,
        userId: `UFUZZ${n}`,
        text: `<@U0TOLLBOT> ${text}`,
        ts: `1800000000.${String(n).padStart(6, '0')}`,
      }),
    }),
  );
  const events: EndpointTarget = {
    path: '/slack/events',
    template: mention,
    marker: mention,
    render: (payload, auth) => {
      const body = JSON.stringify(payload) ?? 'null';
      return {
        contentType: 'application/json',
        body,
        headers: sign(body, auth),
        authentic: auth === 'valid',
      };
    },
    validStatuses: [200],
    sign: (body) => sign(body, 'valid'),
    commandIds: (p) => {
      const [team, channel, ts] = [
        field(p, 'team_id'),
        field(p, 'event', 'channel'),
        field(p, 'event', 'ts'),
      ];
      return typeof team === 'string' && typeof channel === 'string' && typeof ts === 'string'
        ? [`slack:${team}:${channel}:${ts}`]
        : [];
    },
  };
  const click = fc
    .tuple(idNumber, hex24, fc.constantFrom('approve_once', 'deny', 'approve_always', 'edit'))
    .map(([n, ref, option]) =>
      blockActionsPayload({
        teamId,
        channelId: `CFUZZ${n}`,
        messageTs: `1800000000.${String(n).padStart(6, '0')}`,
        userId: `UFUZZ${n}`,
        actionId: `tollgate:${option}`,
        value: ref,
        actionTs: `1800000001.${String(n).padStart(6, '0')}`,
      }),
    );
  // G2: the "Edit & approve" modal's submission, for a prompt this binding never posted.
  const editSubmission = fc
    .tuple(idNumber, hex24, fc.array(someText, { minLength: 1, maxLength: 3 }))
    .map(([n, ref, texts]) => {
      const inputs = texts.map((text, index) => ({
        blockId: `${EDIT_BLOCK_PREFIX}${index}`,
        actionId: EDIT_INPUT_ACTION,
        label: `arg${index}`,
        initialValue: text,
        multiline: false,
      }));
      const privateMetadata = JSON.stringify({
        ref,
        channel: `CFUZZ${n}`,
        ts: `1800000000.${String(n).padStart(6, '0')}`,
        names: inputs.map((input) => input.label),
      });
      return viewSubmissionPayload({
        teamId,
        userId: `UFUZZ${n}`,
        view: {
          id: `VFUZZ${n}`,
          triggerId: `fuzz.${n}`,
          user: `UFUZZ${n}`,
          callbackId: EDIT_CALLBACK_ID,
          title: 'Edit & approve',
          privateMetadata,
          inputs,
          openedAfterMs: 0,
          view: { type: 'modal', callback_id: EDIT_CALLBACK_ID, private_metadata: privateMetadata },
        },
        values: Object.fromEntries(
          inputs.map((input) => [input.blockId, `${input.initialValue}/x`]),
        ),
      });
    });
  const interactions: EndpointTarget = {
    path: '/slack/interactions',
    template: fc.oneof(click, editSubmission),
    render: (payload, auth) => {
      const body = new URLSearchParams({ payload: JSON.stringify(payload) ?? 'null' }).toString();
      return {
        contentType: 'application/x-www-form-urlencoded',
        body,
        headers: sign(body, auth),
        authentic: auth === 'valid',
      };
    },
    // Its prompt is unknown: the clicker is told, nothing is published.
    validStatuses: [200],
    sign: (body) => sign(body, 'valid'),
    rawJunk: rawFormJunk,
    commandIds: (p) => {
      const user = str(field(p, 'user', 'id'));
      if (!user) return [];
      // docs/protocol.md §1: an edit's command id is `view:<view id>:<user id>`.
      const view = str(field(p, 'view', 'id'));
      const actions = field(p, 'actions');
      return [
        ...(view ? [`view:${view}:${user}`] : []),
        ...(Array.isArray(actions)
          ? actions.flatMap((a) => {
              const ts = str(field(a, 'action_ts'));
              return ts ? [`${ts}:${user}`] : [];
            })
          : []),
      ];
    },
  };
  return [events, interactions];
}

// ---------- Discord ----------

export function discordTargets(
  privateKey: KeyObject,
  otherKey: KeyObject,
  applicationId: string,
  guildId: string,
): EndpointTarget[] {
  const sign = (body: string | Buffer, auth: Auth): Record<string, string> => {
    switch (auth) {
      case 'valid':
        return signDiscordRequest(privateKey, nowSeconds(), body);
      case 'forged':
        return signDiscordRequest(otherKey, nowSeconds(), body);
      case 'stale':
        return signDiscordRequest(privateKey, nowSeconds() + STALE_OFFSET_SECONDS, body);
      case 'none':
        return {};
    }
  };
  const placed = (n: number, inGuild: boolean) => ({
    applicationId,
    id: String(1_500_000_000_000_000_000n + BigInt(n)),
    channelId: String(1_300_000_000_000_000_000n + BigInt(n)),
    user: { id: String(1_600_000_000_000_000_000n + BigInt(n)), username: `fuzz${n}` },
    ...(inGuild ? { guildId } : {}),
  });
  const ask = fc
    .tuple(idNumber, someText, fc.boolean())
    .map(([n, text, inGuild]) => askCommandInteraction({ ...placed(n, inGuild), text }));
  const click = fc.tuple(idNumber, hex24, fc.boolean()).map(([n, ref, inGuild]) =>
    buttonClickInteraction({
      ...placed(n, inGuild),
      customId: `tg:approve_once:${ref}`,
      messageId: String(1_700_000_000_000_000_000n + BigInt(n)),
    }),
  );
  // G2: MODAL_SUBMIT of the "Edit & approve" modal, for a prompt this binding never posted.
  const modalSubmit = fc
    .tuple(idNumber, hex24, fc.array(someText, { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([n, ref, texts, inGuild]) => {
      const where = placed(n, inGuild);
      return {
        ...modalSubmitInteraction({
          applicationId,
          ...(inGuild ? { guildId } : {}),
          user: where.user,
          modal: {
            userId: where.user.id,
            channelId: where.channelId,
            messageId: String(1_700_000_000_000_000_000n + BigInt(n)),
            customId: `${EDIT_MODAL_PREFIX}${ref}`,
            title: 'Edit & approve',
            inputs: texts.map((text, index) => ({
              customId: `${EDIT_INPUT_PREFIX}${index}`,
              label: `arg${index}`,
              style: 1 as const,
              value: text,
            })),
          },
          values: {},
        }),
        id: where.id,
      };
    });
  const interactions: EndpointTarget = {
    path: '/discord/interactions',
    template: fc.oneof(ask, click, modalSubmit),
    marker: ask,
    render: (payload, auth) => {
      const body = JSON.stringify(payload) ?? 'null';
      return {
        contentType: 'application/json',
        body,
        headers: sign(body, auth),
        authentic: auth === 'valid',
      };
    },
    validStatuses: [200],
    sign: (body) => sign(body, 'valid'),
    commandIds: (p) => {
      const id = str(field(p, 'id'));
      return id ? [id] : [];
    },
  };
  return [interactions];
}

// ---------- Mattermost ----------

export function mattermostTargets(
  actionSecret: string,
  commandToken: string,
  teamId: string,
): EndpointTarget[] {
  const actions: EndpointTarget = {
    path: '/mattermost/actions',
    template: fc
      .tuple(
        idNumber,
        fc.stringMatching(/^[0-9a-f]{32}$/),
        fc.constantFrom('approve_once', 'deny'),
        fc.stringMatching(/^[0-9a-f]{32}$/),
      )
      .map(([n, session, optionKey, nonce]) => {
        const fields = {
          sessionId: `mattermost-${session}`,
          callId: `call_${n}_1`,
          optionKey,
          nonce,
        };
        return actionCallbackBody({
          userId: `fuzzuser${n}`.padEnd(26, '0').slice(0, 26),
          channelId: `fuzzchan${n}`.padEnd(26, '0').slice(0, 26),
          postId: `fuzzpost${n}`.padEnd(26, '0').slice(0, 26),
          context: fields,
        });
      }),
    render: (payload, auth) => {
      // Mattermost signs nothing: the proof is the HMAC the binding put in the context.
      const context = field(payload, 'context');
      let authentic = false;
      if (typeof context === 'object' && context !== null && !Array.isArray(context)) {
        const c = context as Record<string, unknown>;
        const fields = {
          sessionId: str(c.sessionId) ?? '',
          callId: str(c.callId) ?? '',
          optionKey: str(c.optionKey) ?? '',
          nonce: str(c.nonce) ?? '',
        };
        switch (auth) {
          case 'valid':
            c.sig = signAction(actionSecret, fields);
            authentic = true;
            break;
          case 'forged':
            c.sig = signAction(`${actionSecret}-not`, fields);
            break;
          case 'stale':
            // A captured context replayed with another option swapped in.
            c.sig = signAction(actionSecret, { ...fields, optionKey: `${fields.optionKey}x` });
            break;
          case 'none':
            delete c.sig;
            break;
        }
      }
      return {
        contentType: 'application/json',
        body: JSON.stringify(payload) ?? 'null',
        headers: {},
        authentic,
      };
    },
    commandIds: (p) => {
      const user = str(field(p, 'user_id'));
      const ids = [str(field(p, 'trigger_id'))];
      if (user) {
        ids.push(
          `${str(field(p, 'post_id'))}:${user}`,
          `${str(field(p, 'context', 'callId'))}:${user}`,
        );
      }
      return ids
        .filter((id): id is string => id !== undefined && id !== '')
        .map((id) => `mattermost:${id}`);
    },
  };
  const slashCommand = fc.tuple(idNumber, someText, fc.boolean()).map(([n, text, asJson]) => ({
    asJson,
    fields: Object.fromEntries(
      slashCommandBody({
        token: commandToken,
        teamId,
        channelId: `fuzzchan${n}`.padEnd(26, '0').slice(0, 26),
        userId: `fuzzuser${n}`.padEnd(26, '0').slice(0, 26),
        text,
        triggerId: `fuzztrigger${n}`,
      }),
    ),
  }));
  const commands: EndpointTarget = {
    path: '/mattermost/commands',
    template: slashCommand,
    marker: slashCommand,
    render: (payload, auth) => {
      // The template is {asJson, fields}; a mutated one may be anything at all.
      const asJson = field(payload, 'asJson') === true;
      const fields = field(payload, 'fields') ?? payload;
      let authentic = false;
      if (typeof fields === 'object' && fields !== null && !Array.isArray(fields)) {
        const f = fields as Record<string, unknown>;
        if (auth === 'valid') {
          f.token = commandToken;
          authentic = true;
        } else if (auth === 'none') delete f.token;
        else f.token = `${commandToken}-not`;
      }
      return asJson
        ? {
            contentType: 'application/json',
            body: JSON.stringify(fields) ?? 'null',
            headers: {},
            authentic,
          }
        : {
            contentType: 'application/x-www-form-urlencoded',
            body: formEncode(fields),
            headers: {},
            authentic,
          };
    },
    validStatuses: [200],
    rawJunk: rawFormJunk.map((junk) => `token=${encodeURIComponent(commandToken)}&${junk}`),
    rawJunkAuthentic: true,
    commandIds: (p) => {
      const fields = field(p, 'fields') ?? p;
      return [field(fields, 'trigger_id'), field(fields, 'post_id')]
        .flatMap((value) => [str(value), formText(value)])
        .filter((id): id is string => id !== undefined && id !== '')
        .map((id) => `mattermost:${id}`);
    },
  };
  // G2: the "Edit & approve" dialog's submission; its `state` is the edit button's signed context.
  const dialogs: EndpointTarget = {
    path: '/mattermost/dialogs',
    template: fc
      .tuple(
        idNumber,
        fc.stringMatching(/^[0-9a-f]{32}$/),
        fc.stringMatching(/^[0-9a-f]{32}$/),
        fc.array(someText, { minLength: 1, maxLength: 3 }),
      )
      .map(([n, session, nonce, texts]) => ({
        type: 'dialog_submission',
        callback_id: `fuzzdialog${n}`,
        // An object here, signed and written as the JSON text Mattermost carries by render.
        state: {
          sessionId: `mattermost-${session}`,
          callId: `call_${n}_1`,
          optionKey: 'edit',
          nonce,
        },
        user_id: `fuzzuser${n}`.padEnd(26, '0').slice(0, 26),
        channel_id: `fuzzchan${n}`.padEnd(26, '0').slice(0, 26),
        team_id: teamId,
        submission: Object.fromEntries(
          texts.map((text, index) => [`${EDIT_ELEMENT_PREFIX}${index}`, text]),
        ),
        cancelled: false,
      })),
    render: (payload, auth) => {
      const state = field(payload, 'state');
      let authentic = false;
      let body = payload;
      if (typeof state === 'object' && state !== null && !Array.isArray(state)) {
        const c = { ...(state as Record<string, unknown>) };
        const fields = {
          sessionId: str(c.sessionId) ?? '',
          callId: str(c.callId) ?? '',
          optionKey: str(c.optionKey) ?? '',
          nonce: str(c.nonce) ?? '',
        };
        switch (auth) {
          case 'valid':
            c.sig = signAction(actionSecret, fields);
            authentic = true;
            break;
          case 'forged':
            c.sig = signAction(`${actionSecret}-not`, fields);
            break;
          case 'stale':
            // A captured approve button's context replayed as the dialog's state.
            c.sig = signAction(actionSecret, { ...fields, optionKey: 'approve_once' });
            break;
          case 'none':
            delete c.sig;
            break;
        }
        body = { ...(payload as Record<string, unknown>), state: JSON.stringify(c) };
      }
      return {
        contentType: 'application/json',
        body: JSON.stringify(body) ?? 'null',
        headers: {},
        authentic,
      };
    },
    // Signed, but for a prompt the binding never posted: refused unknown_nonce.
    validStatuses: [401],
    commandIds: (p) => {
      const user = str(field(p, 'user_id'));
      const callback = str(field(p, 'callback_id'));
      return user && callback ? [`mattermost:dialog:${callback}:${user}`] : [];
    },
  };
  return [actions, commands, dialogs];
}
