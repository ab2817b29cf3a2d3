import { randomBytes } from 'node:crypto';

/**
 * Slack's modals as the stand-in serves them (`views.open`, reference: api.slack.com/methods/
 * views.open and the view payload reference). A trigger_id is handed out with each interaction
 * payload and is good for one `views.open` within 3 seconds of it (Slack: "expired_trigger_id"
 * after, "invalid_trigger_id" for one it never issued, and a used one is spent). The opened view
 * is checked the way Slack checks it and kept, so a person (a test, the sandbox page) can fill
 * it in and submit it as `view_submission`.
 */

export const TRIGGER_LIFETIME_MS = 3_000;

const LIMITS = {
  title: 24,
  submit: 24,
  close: 24,
  blocks: 100,
  privateMetadata: 3_000,
  callbackId: 255,
  blockId: 255,
  label: 2_000,
  hint: 2_000,
  inputValue: 3_000,
} as const;

export interface SlackViewInput {
  readonly blockId: string;
  readonly actionId: string;
  readonly label: string;
  readonly hint?: string;
  readonly initialValue?: string;
  readonly multiline: boolean;
}

export interface FakeSlackView {
  readonly id: string;
  readonly triggerId: string;
  /** Who clicked: a view opens for the person whose interaction issued its trigger. */
  readonly user: string;
  readonly callbackId: string;
  readonly title: string;
  readonly privateMetadata: string;
  readonly inputs: readonly SlackViewInput[];
  /** Milliseconds from the trigger's issue to the `views.open` that used it. */
  readonly openedAfterMs: number;
  readonly view: Record<string, unknown>;
}

type Result = { ok: boolean; [key: string]: unknown };

export class SlackViewsFake {
  private readonly triggers = new Map<string, { user: string; issuedAt: number }>();
  private readonly opened: FakeSlackView[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A trigger_id for an interaction payload sent on behalf of `user`. */
  issueTrigger(user: string): string {
    const id = `${Math.floor(this.now() / 1000)}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(8).toString('hex')}`;
    this.triggers.set(id, { user, issuedAt: this.now() });
    return id;
  }

  get views(): FakeSlackView[] {
    return structuredClone(this.opened);
  }

  /** `views.open`: the trigger checked (issued, unused, under 3 s old), then the view. */
  open(args: Record<string, unknown>): Result {
    const triggerId = typeof args.trigger_id === 'string' ? args.trigger_id : undefined;
    if (triggerId === undefined) return { ok: false, error: 'invalid_arguments' };
    const trigger = this.triggers.get(triggerId);
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    this.triggers.delete(triggerId);
    const age = this.now() - trigger.issuedAt;
    if (age > TRIGGER_LIFETIME_MS) return { ok: false, error: 'expired_trigger_id' };
    const view = args.view;
    if (typeof view !== 'object' || view === null) return { ok: false, error: 'invalid_arguments' };
    const checked = checkModal(view as Record<string, unknown>);
    if (typeof checked === 'string') {
      return { ok: false, error: 'invalid_arguments', response_metadata: { messages: [checked] } };
    }
    const id = `V${randomBytes(5).toString('hex').toUpperCase()}`;
    this.opened.push({
      id,
      triggerId,
      user: trigger.user,
      ...checked,
      openedAfterMs: age,
      view: structuredClone(view as Record<string, unknown>),
    });
    return { ok: true, view: { id, ...(view as Record<string, unknown>) } };
  }
}

type CheckedModal = Pick<FakeSlackView, 'callbackId' | 'title' | 'privateMetadata' | 'inputs'>;

/** Slack's own checks of a modal, as far as Tollgate's use of one goes; a problem as Slack words it. */
function checkModal(view: Record<string, unknown>): CheckedModal | string {
  if (view.type !== 'modal') return '[ERROR] must be a modal [json-pointer:/view/type]';
  const title = plainText(view.title, LIMITS.title, 'title');
  if (typeof title !== 'string' || title.startsWith('[ERROR]'))
    return title ?? '[ERROR] missing title';
  for (const field of ['submit', 'close'] as const) {
    if (view[field] === undefined) continue;
    const text = plainText(view[field], LIMITS[field], field);
    if (text === undefined || text.startsWith('[ERROR]')) return text ?? `[ERROR] bad ${field}`;
  }
  const metadata = view.private_metadata ?? '';
  if (typeof metadata !== 'string' || metadata.length > LIMITS.privateMetadata) {
    return `[ERROR] must be at most ${LIMITS.privateMetadata} characters [json-pointer:/view/private_metadata]`;
  }
  const callbackId = view.callback_id ?? '';
  if (typeof callbackId !== 'string' || callbackId.length > LIMITS.callbackId) {
    return '[ERROR] bad callback_id [json-pointer:/view/callback_id]';
  }
  const blocks = view.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > LIMITS.blocks) {
    return `[ERROR] must hold 1 to ${LIMITS.blocks} blocks [json-pointer:/view/blocks]`;
  }
  const inputs: SlackViewInput[] = [];
  const blockIds = new Set<string>();
  for (const [index, raw] of blocks.entries()) {
    const block = raw as Record<string, unknown>;
    const blockId = block.block_id;
    if (typeof blockId === 'string') {
      if (blockId.length > LIMITS.blockId || blockIds.has(blockId)) {
        return `[ERROR] duplicate or long block_id [json-pointer:/view/blocks/${index}/block_id]`;
      }
      blockIds.add(blockId);
    }
    if (block.type !== 'input') continue;
    const label = plainText(block.label, LIMITS.label, `blocks/${index}/label`);
    if (label === undefined || label.startsWith('[ERROR]')) return label ?? '[ERROR] missing label';
    const hint =
      block.hint === undefined
        ? undefined
        : plainText(block.hint, LIMITS.hint, `blocks/${index}/hint`);
    if (hint?.startsWith('[ERROR]')) return hint;
    const element = block.element as Record<string, unknown> | undefined;
    if (element?.type !== 'plain_text_input' || typeof element.action_id !== 'string') {
      return `[ERROR] an input needs a plain_text_input element [json-pointer:/view/blocks/${index}/element]`;
    }
    const initial = element.initial_value;
    if (
      initial !== undefined &&
      (typeof initial !== 'string' || initial.length > LIMITS.inputValue)
    ) {
      return `[ERROR] initial_value must be at most ${LIMITS.inputValue} characters [json-pointer:/view/blocks/${index}/element/initial_value]`;
    }
    if (typeof blockId !== 'string')
      return `[ERROR] an input needs a block_id here [json-pointer:/view/blocks/${index}]`;
    inputs.push({
      blockId,
      actionId: element.action_id,
      label,
      ...(hint === undefined ? {} : { hint }),
      ...(typeof initial === 'string' ? { initialValue: initial } : {}),
      multiline: element.multiline === true,
    });
  }
  return {
    callbackId,
    title,
    privateMetadata: metadata,
    inputs,
  };
}

function plainText(value: unknown, limit: number, at: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, text } = value as { type?: unknown; text?: unknown };
  if (type !== 'plain_text' || typeof text !== 'string' || text.length === 0) {
    return `[ERROR] must be plain_text [json-pointer:/view/${at}]`;
  }
  if (text.length > limit) {
    return `[ERROR] must be less than ${limit + 1} characters [json-pointer:/view/${at}/text]`;
  }
  return text;
}

/** What Slack POSTs when the person submits the modal: each input's value by block and action. */
export function viewSubmissionPayload(o: {
  teamId: string;
  userId: string;
  userName?: string;
  view: FakeSlackView;
  /** By block id; an input left out keeps its initial value. */
  values: Readonly<Record<string, string>>;
  apiAppId?: string;
}): Record<string, unknown> {
  const userName = o.userName ?? o.userId.toLowerCase();
  const values = Object.fromEntries(
    o.view.inputs.map((input) => [
      input.blockId,
      {
        [input.actionId]: {
          type: 'plain_text_input',
          value: Object.hasOwn(o.values, input.blockId)
            ? o.values[input.blockId]
            : (input.initialValue ?? null),
        },
      },
    ]),
  );
  return {
    type: 'view_submission',
    team: { id: o.teamId, domain: 'tollgate-test' },
    user: { id: o.userId, username: userName, name: userName, team_id: o.teamId },
    api_app_id: o.apiAppId ?? 'A0TOLLGATE',
    token: 'fake-verification-token',
    trigger_id: `${Date.now()}.submit.${randomBytes(4).toString('hex')}`,
    view: {
      ...o.view.view,
      id: o.view.id,
      team_id: o.teamId,
      state: { values },
      hash: randomBytes(8).toString('hex'),
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}
