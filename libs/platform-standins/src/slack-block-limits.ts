/**
 * The Block Kit limits Slack enforces on messages (reference §1.4, from @slack/types and the
 * Block Kit docs), so a renderer that overflows one fails against the fake as it would live.
 * Messages read like Slack's own `invalid_blocks` errors: `<problem> [json-pointer:<path>]`.
 */

const MAX_BLOCKS = 50;
const MAX_ID = 255;
const MAX_ACTIONS_ELEMENTS = 25;
const MAX_BUTTON_VALUE = 2000;
const MAX_BUTTON_TEXT = 75;
const MAX_SECTION_TEXT = 3000;
const MAX_SECTION_FIELDS = 10;
const MAX_FIELD_TEXT = 2000;
const MAX_CONTEXT_ELEMENTS = 10;
const MAX_HEADER_TEXT = 150;

type Json = Record<string, unknown>;

export function validateBlocks(blocks: unknown[]): string[] {
  const problems: string[] = [];
  const report = (problem: string, pointer: string): void => {
    problems.push(`${problem} [json-pointer:/blocks${pointer}]`);
  };
  if (blocks.length > MAX_BLOCKS) report(`must provide no more than ${MAX_BLOCKS} items`, '');
  const blockIds = new Set<string>();
  blocks.forEach((candidate, i) => {
    if (!isObject(candidate) || typeof candidate.type !== 'string') {
      report('missing required field: type', `/${i}`);
      return;
    }
    const blockId = candidate.block_id;
    if (blockId !== undefined) {
      if (typeof blockId !== 'string' || blockId.length === 0 || blockId.length > MAX_ID) {
        report(`must be a string of 1-${MAX_ID} characters`, `/${i}/block_id`);
      } else if (blockIds.has(blockId)) {
        report('duplicate block_id', `/${i}/block_id`);
      } else {
        blockIds.add(blockId);
      }
    }
    checkBlock(candidate, (problem, pointer) => report(problem, `/${i}${pointer}`));
  });
  return problems;
}

function checkBlock(block: Json, report: (problem: string, pointer: string) => void): void {
  switch (block.type) {
    case 'actions': {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0) {
        report('must provide at least 1 element', '/elements');
        return;
      }
      if (elements.length > MAX_ACTIONS_ELEMENTS) {
        report(`must provide no more than ${MAX_ACTIONS_ELEMENTS} items`, '/elements');
      }
      const actionIds = new Set<string>();
      elements.forEach((element, j) => {
        const pointer = `/elements/${j}`;
        if (!isObject(element) || element.type !== 'button') return;
        checkButton(element, (problem, rest) => report(problem, `${pointer}${rest}`));
        if (typeof element.action_id === 'string') {
          if (actionIds.has(element.action_id))
            report('duplicate action_id', `${pointer}/action_id`);
          actionIds.add(element.action_id);
        }
      });
      return;
    }
    case 'section': {
      if (block.text === undefined && block.fields === undefined) {
        report('must provide text or fields', '');
      }
      if (block.text !== undefined) checkText(block.text, 1, MAX_SECTION_TEXT, '/text', report);
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields) || block.fields.length > MAX_SECTION_FIELDS) {
          report(`must provide no more than ${MAX_SECTION_FIELDS} items`, '/fields');
        } else {
          block.fields.forEach((field, j) =>
            checkText(field, 1, MAX_FIELD_TEXT, `/fields/${j}`, report),
          );
        }
      }
      if (isObject(block.accessory) && block.accessory.type === 'button') {
        checkButton(block.accessory, (problem, rest) => report(problem, `/accessory${rest}`));
      }
      return;
    }
    case 'context': {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0) {
        report('must provide at least 1 element', '/elements');
      } else if (elements.length > MAX_CONTEXT_ELEMENTS) {
        report(`must provide no more than ${MAX_CONTEXT_ELEMENTS} items`, '/elements');
      }
      return;
    }
    case 'header':
      checkText(block.text, 1, MAX_HEADER_TEXT, '/text', report, 'plain_text');
      return;
    default:
      return;
  }
}

function checkButton(button: Json, report: (problem: string, pointer: string) => void): void {
  const actionId = button.action_id;
  if (actionId !== undefined && (typeof actionId !== 'string' || actionId.length > MAX_ID)) {
    report(`must be a string of at most ${MAX_ID} characters`, '/action_id');
  }
  const value = button.value;
  if (value !== undefined && (typeof value !== 'string' || value.length > MAX_BUTTON_VALUE)) {
    report(`must be a string of at most ${MAX_BUTTON_VALUE} characters`, '/value');
  }
  checkText(button.text, 1, MAX_BUTTON_TEXT, '/text', report, 'plain_text');
  const style = button.style;
  if (style !== undefined && style !== 'primary' && style !== 'danger') {
    report('must be one of primary, danger', '/style');
  }
}

function checkText(
  value: unknown,
  min: number,
  max: number,
  pointer: string,
  report: (problem: string, pointer: string) => void,
  onlyType?: 'plain_text',
): void {
  if (!isObject(value) || typeof value.text !== 'string') {
    report('must provide a text object', pointer);
    return;
  }
  const type = value.type;
  if (onlyType ? type !== onlyType : type !== 'plain_text' && type !== 'mrkdwn') {
    report(`must be of type ${onlyType ?? 'plain_text or mrkdwn'}`, `${pointer}/type`);
  }
  if (value.text.length < min || value.text.length > max) {
    report(`must be ${min}-${max} characters`, `${pointer}/text`);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
