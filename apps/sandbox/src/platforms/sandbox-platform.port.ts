import type { Platform } from '@tollgate/protocol';
import type { PersonKey } from './sandbox-people';

/** One piece of a message as the platform lays it out. */
export type PanelPart =
  /** The message's main text, in the platform's markup. */
  | { readonly kind: 'text'; readonly text: string }
  /** Small grey lines under it: Slack context blocks, "used /ask", who decided. */
  | { readonly kind: 'context'; readonly text: string }
  /** A coloured block: a Mattermost attachment, a Slack attachment. */
  | { readonly kind: 'attachment'; readonly text: string; readonly color: string | undefined };

export interface PanelButton {
  readonly label: string;
  readonly style: 'primary' | 'danger' | 'default';
  readonly disabled: boolean;
  /** What a click sends back to the sandbox: the platform's own reference to this button. */
  readonly ref: string;
}

export interface PanelMessage {
  /** Stable across edits, so the page can show that a message changed in place. */
  readonly id: string;
  readonly author: string;
  readonly fromBot: boolean;
  readonly at: number;
  readonly parts: readonly PanelPart[];
  readonly buttons: readonly PanelButton[];
  readonly edits: number;
  /** Shown only to this person ("only visible to you"). */
  readonly privateTo?: PersonKey;
}

/** One field of a platform's form, as the platform lays it out. */
export interface PanelFormField {
  /** The platform's own key for the field: what its submission names the value by. */
  readonly name: string;
  readonly label: string;
  /** What the binding prefilled. */
  readonly value: string;
  readonly hint?: string;
  readonly multiline: boolean;
}

/**
 * G2: a form the binding opened for the viewer (Slack's modal, Discord's modal, Mattermost's
 * interactive dialog), shown by the page over the panel until submitted or closed.
 */
export interface PanelForm {
  /** Stable while the form is open, so the page keeps what the person typed. */
  readonly id: string;
  readonly title: string;
  readonly submitLabel: string;
  readonly fields: readonly PanelFormField[];
  /** The binding's answer to the last submission when it kept the form open. */
  readonly error?: string;
}

export interface PanelView {
  readonly platform: Platform;
  /** Real platform: the binding talks to it, and the page shows nothing of it. */
  readonly real: boolean;
  readonly messages: readonly PanelMessage[];
  /** The form open for the viewer, the latest one the binding opened. */
  readonly form?: PanelForm;
}

/** Where the panel's conversation is, as an approval-api client names its route. */
export interface AgentRoute {
  readonly workspaceId: string;
  readonly channelId: string;
}

/** What the sandbox needs of one platform's stand-in: run it, talk to the binding, show it. */
export interface SandboxPlatform {
  readonly platform: Platform;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The binding's platform variables, given the URL where the binding will answer. */
  bindingEnv(bindingUrl: string): Record<string, string>;
  /** A person writes to the bot, as the platform delivers it: signed, on the same endpoint. */
  say(bindingUrl: string, person: PersonKey, text: string): Promise<number>;
  /** A person clicks a button shown in the panel. */
  click(bindingUrl: string, person: PersonKey, ref: string): Promise<number>;
  /**
   * G2: the person submits the open form `formId` with these values (by field name), as the
   * platform submits it: signed, to the same endpoint. 404 when no such form is open for them.
   */
  submitForm(
    bindingUrl: string,
    person: PersonKey,
    formId: string,
    values: Readonly<Record<string, string>>,
  ): Promise<number>;
  /** The person closes the form without submitting it (platforms tell the binding nothing). */
  closeForm(person: PersonKey, formId: string): boolean;
  /** The panel's channel, for the page's outside agent; none for a real platform. */
  agentRoute(): AgentRoute | undefined;
  /** The conversation as `viewer` sees it: private notices of others left out. */
  view(viewer: PersonKey): PanelView;
  /** Changes whenever anything the panel shows may have changed. */
  fingerprint(): string;
  /** What to keep for the next `npm start`. */
  snapshot(): unknown;
  restore(snapshot: unknown): void;
}
