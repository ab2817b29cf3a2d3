import { randomBytes } from 'node:crypto';

/**
 * Mattermost's interactive dialogs (reference: developers.mattermost.com, "Interactive
 * dialogs"; server: model.OpenDialogRequest and IsValid). An integration opens one with
 * `POST /api/v4/actions/dialogs/open` and the `trigger_id` of the action that asked for it,
 * which the server accepts for 3 seconds (InteractiveDialogTriggerTimeout) and once. The dialog
 * is checked as the server does: a `url` to post the submission to, a title of 1–24
 * characters, at most 5 elements (the limit Tollgate keeps to on every platform), each with a
 * `display_name` of 1–24, a `name` of 1–300 unique in the dialog, a type `text` (value at most
 * 150) or `textarea` (at most 3,000), a `help_text` and `placeholder` of at most 150.
 * Submitting it POSTs a `dialog_submission` to `url` with each element's value by name.
 */

export const DIALOG_TRIGGER_LIFETIME_MS = 3_000;

export interface MattermostDialogElement {
  readonly name: string;
  readonly displayName: string;
  readonly type: 'text' | 'textarea';
  readonly default?: string;
  readonly helpText?: string;
}

export interface FakeMattermostDialog {
  /** Who sees it: the user whose action issued the trigger. */
  readonly userId: string;
  readonly channelId: string;
  readonly url: string;
  readonly callbackId: string;
  readonly title: string;
  readonly state: string;
  readonly elements: readonly MattermostDialogElement[];
  /** Milliseconds from the trigger's issue to the open that used it. */
  readonly openedAfterMs: number;
}

type Answer =
  { ok: true; dialog: FakeMattermostDialog } | { ok: false; status: number; message: string };

export class MattermostDialogsFake {
  private readonly triggers = new Map<
    string,
    { userId: string; channelId: string; issuedAt: number }
  >();
  private readonly opened: FakeMattermostDialog[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A trigger_id for an action callback sent as `userId` in `channelId`. */
  issueTrigger(userId: string, channelId: string): string {
    const id = `${randomBytes(18).toString('base64url')}`;
    this.triggers.set(id, { userId, channelId, issuedAt: this.now() });
    return id;
  }

  get dialogs(): FakeMattermostDialog[] {
    return structuredClone(this.opened);
  }

  open(body: Record<string, unknown>): Answer {
    const triggerId = typeof body.trigger_id === 'string' ? body.trigger_id : '';
    const trigger = this.triggers.get(triggerId);
    if (!trigger) return refuse(400, 'invalid trigger_id');
    this.triggers.delete(triggerId);
    const age = this.now() - trigger.issuedAt;
    if (age > DIALOG_TRIGGER_LIFETIME_MS) return refuse(400, 'trigger_id has expired');
    const url = body.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return refuse(400, 'invalid url');
    const dialog = body.dialog as Record<string, unknown> | undefined;
    if (typeof dialog !== 'object' || dialog === null) return refuse(400, 'missing dialog');
    const title = bounded(dialog.title, 1, 24);
    if (title === undefined) return refuse(400, 'title must be 1 to 24 characters');
    const elements = dialog.elements ?? [];
    if (!Array.isArray(elements) || elements.length > 5) {
      return refuse(400, 'a dialog holds at most 5 elements');
    }
    const checked: MattermostDialogElement[] = [];
    for (const raw of elements as Record<string, unknown>[]) {
      const displayName = bounded(raw.display_name, 1, 24);
      if (displayName === undefined) return refuse(400, 'display_name must be 1 to 24 characters');
      const name = bounded(raw.name, 1, 300);
      if (name === undefined || checked.some((e) => e.name === name)) {
        return refuse(400, 'each element needs its own name of 1 to 300 characters');
      }
      if (raw.type !== 'text' && raw.type !== 'textarea') {
        return refuse(400, 'Tollgate uses text and textarea elements only');
      }
      const limit = raw.type === 'text' ? 150 : 3_000;
      if (raw.default !== undefined && bounded(raw.default, 0, limit) === undefined) {
        return refuse(400, `a ${raw.type} default must be at most ${limit} characters`);
      }
      for (const field of ['help_text', 'placeholder'] as const) {
        if (raw[field] !== undefined && bounded(raw[field], 0, 150) === undefined) {
          return refuse(400, `${field} must be at most 150 characters`);
        }
      }
      checked.push({
        name,
        displayName,
        type: raw.type,
        ...(typeof raw.default === 'string' ? { default: raw.default } : {}),
        ...(typeof raw.help_text === 'string' ? { helpText: raw.help_text } : {}),
      });
    }
    const opened: FakeMattermostDialog = {
      userId: trigger.userId,
      channelId: trigger.channelId,
      url,
      callbackId: typeof dialog.callback_id === 'string' ? dialog.callback_id : '',
      title,
      state: typeof dialog.state === 'string' ? dialog.state : '',
      elements: checked,
      openedAfterMs: age,
    };
    this.opened.push(opened);
    return { ok: true, dialog: structuredClone(opened) };
  }
}

function refuse(status: number, message: string): Answer {
  return { ok: false, status, message };
}

function bounded(value: unknown, min: number, max: number): string | undefined {
  return typeof value === 'string' && value.length >= min && value.length <= max
    ? value
    : undefined;
}

/** The body Mattermost POSTs to the dialog's `url` on submit; elements left out keep their default. */
export function dialogSubmissionBody(o: {
  dialog: FakeMattermostDialog;
  userId: string;
  teamId: string;
  values: Readonly<Record<string, string>>;
}): Record<string, unknown> {
  return {
    type: 'dialog_submission',
    callback_id: o.dialog.callbackId,
    state: o.dialog.state,
    user_id: o.userId,
    channel_id: o.dialog.channelId,
    team_id: o.teamId,
    submission: Object.fromEntries(
      o.dialog.elements.map((e) => [
        e.name,
        Object.hasOwn(o.values, e.name) ? o.values[e.name] : (e.default ?? ''),
      ]),
    ),
    cancelled: false,
  };
}
