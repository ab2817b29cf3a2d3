/**
 * Read-side helpers over Block Kit JSON, so contract tests can say "buttons removed" or
 * "label shown" without walking blocks by hand. The shapes are loose on purpose: the fake
 * stores whatever the client sent, and a helper must not throw on a block it does not know.
 */

export type SlackBlock = { type: string; block_id?: string; [key: string]: unknown };

export interface SlackButton {
  action_id: string;
  value: string | undefined;
  text: string;
  style: 'primary' | 'danger' | undefined;
  block_id: string | undefined;
}

/** Anything shaped like a Slack message: a fake message, one of its versions, a post or an edit. */
export interface SlackMessageLike {
  text?: string;
  blocks?: unknown;
}

type TextObject = { type?: string; text?: unknown };

export function blocksOf(message: SlackMessageLike | undefined): SlackBlock[] {
  const blocks = message?.blocks;
  return Array.isArray(blocks) ? blocks.filter(isBlock) : [];
}

/** Buttons in actions blocks and in section accessories, in display order. */
export function actionsOf(message: SlackMessageLike | undefined): SlackButton[] {
  const buttons: SlackButton[] = [];
  for (const block of blocksOf(message)) {
    const candidates =
      block.type === 'actions' && Array.isArray(block.elements)
        ? (block.elements as unknown[])
        : block.type === 'section' && block.accessory !== undefined
          ? [block.accessory]
          : [];
    for (const element of candidates) {
      const button = asButton(element, block.block_id);
      if (button) buttons.push(button);
    }
  }
  return buttons;
}

export function hasActions(message: SlackMessageLike | undefined): boolean {
  return actionsOf(message).length > 0;
}

/**
 * What a reader sees: header, section text and fields, context elements, then the fallback
 * `text` (which Slack shows in notifications and when blocks cannot render).
 */
export function textContent(message: SlackMessageLike | undefined): string {
  const parts: string[] = [];
  for (const block of blocksOf(message)) {
    switch (block.type) {
      case 'header':
        pushText(parts, block.text);
        break;
      case 'section':
        pushText(parts, block.text);
        if (Array.isArray(block.fields)) block.fields.forEach((field) => pushText(parts, field));
        break;
      case 'context':
        if (Array.isArray(block.elements)) block.elements.forEach((el) => pushText(parts, el));
        break;
      default:
        break;
    }
  }
  if (typeof message?.text === 'string' && message.text !== '') parts.push(message.text);
  return parts.join('\n');
}

function isBlock(value: unknown): value is SlackBlock {
  return (
    typeof value === 'object' && value !== null && typeof (value as SlackBlock).type === 'string'
  );
}

function asButton(element: unknown, blockId: string | undefined): SlackButton | undefined {
  if (typeof element !== 'object' || element === null) return undefined;
  const el = element as Record<string, unknown>;
  if (el.type !== 'button' || typeof el.action_id !== 'string') return undefined;
  const label = el.text as TextObject | undefined;
  return {
    action_id: el.action_id,
    value: typeof el.value === 'string' ? el.value : undefined,
    text: typeof label?.text === 'string' ? label.text : '',
    style: el.style === 'primary' || el.style === 'danger' ? el.style : undefined,
    block_id: blockId,
  };
}

function pushText(parts: string[], value: unknown): void {
  const text = (value as TextObject | undefined)?.text;
  if (typeof text === 'string' && text !== '') parts.push(text);
}
