import type { DiscordActionRow } from './discord-api.types';

/**
 * Pure readers and validators of the Discord stand-in's request bodies and arguments, and the
 * error answers they give (Discord's limits for content, buttons and commands). They hold no
 * state, so the message, interaction and guild routes share them from here.
 */

export type Result = { status: number; body: unknown };

const MAX_CONTENT = 2_000;
/** Chat input command and option names (Discord also allows other scripts' lower case). */
const COMMAND_NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;

/** Snowflakes compare as numbers: a shorter one is smaller, equal lengths compare as text. */
export function snowflakeOrder(a: string, b: string): number {
  return a.length === b.length ? (a < b ? -1 : a > b ? 1 : 0) : a.length - b.length;
}

/** Discord's limits for content and legacy components (≤ 5 rows of ≤ 5 buttons). */
export function readContent(
  body: Record<string, unknown>,
  creating: boolean,
): { content?: string; components?: DiscordActionRow[] } | Result {
  const content = body.content === null ? '' : str(body.content);
  if (content !== undefined && content.length > MAX_CONTENT) {
    return invalidForm('content', `Must be ${MAX_CONTENT} or fewer in length.`);
  }
  let components: DiscordActionRow[] | undefined;
  if (body.components !== undefined && body.components !== null) {
    if (!Array.isArray(body.components)) return invalidForm('components', 'Must be an array');
    const problem = validateComponents(body.components);
    if (problem) return invalidForm('components', problem);
    components = body.components as DiscordActionRow[];
  }
  if (creating && !content && (components === undefined || components.length === 0)) {
    return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
  }
  return {
    ...(content === undefined ? {} : { content }),
    ...(components === undefined ? {} : { components }),
  };
}

function validateComponents(rows: unknown[]): string | undefined {
  if (rows.length > 5) return 'Must be 5 or fewer in length.';
  const ids = new Set<string>();
  for (const row of rows as Array<Partial<DiscordActionRow>>) {
    if (row.type !== 1 || !Array.isArray(row.components)) return 'Expected an action row';
    if (row.components.length < 1 || row.components.length > 5) {
      return 'An action row holds 1 to 5 buttons';
    }
    for (const button of row.components) {
      if (button.type !== 2) return 'Expected a button';
      if (![1, 2, 3, 4, 5].includes(button.style)) return 'Invalid button style';
      if (button.label !== undefined && button.label.length > 80) return 'Label over 80';
      if (button.style === 5) continue;
      const id = button.custom_id;
      if (typeof id !== 'string' || id.length < 1 || id.length > 100) {
        return 'custom_id must be 1 to 100 characters';
      }
      if (ids.has(id)) return 'Component custom id cannot be duplicated';
      ids.add(id);
    }
  }
  return undefined;
}

/** Discord's rules for a chat input command and its options (names, lengths, types). */
export function commandProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'Expected a command';
  const command = raw as Record<string, unknown>;
  const type = command.type ?? 1;
  if (![1, 2, 3, 4].includes(type as number)) return 'Invalid command type';
  if (typeof command.name !== 'string' || !COMMAND_NAME.test(command.name)) {
    return 'Command name must be 1 to 32 lower-case letters, digits, - or _';
  }
  const description = command.description;
  if (
    type === 1 &&
    (typeof description !== 'string' || description.length < 1 || description.length > 100)
  ) {
    return 'Description must be 1 to 100 characters';
  }
  const options = command.options ?? [];
  if (!Array.isArray(options) || options.length > 25) return 'Options must be at most 25';
  for (const option of options as Array<Record<string, unknown>>) {
    if (typeof option.name !== 'string' || !COMMAND_NAME.test(option.name)) {
      return 'Option name must be 1 to 32 lower-case letters, digits, - or _';
    }
    if (
      !Number.isInteger(option.type) ||
      (option.type as number) < 1 ||
      (option.type as number) > 11
    ) {
      return 'Invalid option type';
    }
    const text = option.description;
    if (typeof text !== 'string' || text.length < 1 || text.length > 100) {
      return 'Option description must be 1 to 100 characters';
    }
  }
  return undefined;
}

export function invalidForm(field: string, message: string): Result {
  return {
    status: 400,
    body: {
      code: 50035,
      message: 'Invalid Form Body',
      errors: { [field]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } },
    },
  };
}

export function key(channel: string, id: string): string {
  return `${channel}/${id}`;
}

export function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}
