import type { ChatCompletionRequestBody } from '@tollgate/platform-standins';

/** A gate the fake model holds its answers behind until the test opens it. */
export class ModelGate {
  readonly closed: Promise<void>;
  open!: () => void;

  constructor() {
    this.closed = new Promise((resolve) => (this.open = resolve));
  }
}

/**
 * A model for the OpenAI-compatible fake: `note:<x>` asks for `write_note` with text x, a tool
 * result is answered "the tool said …", and any other text is answered "answer to …" — held
 * until its gate in `gates` opens, when it has one.
 */
export function gatedNoteModel(gates: ReadonlyMap<string, ModelGate>) {
  return (request: ChatCompletionRequestBody) => {
    const last = request.messages.at(-1);
    const text = String(last?.content);
    if (last?.role === 'tool') return { content: `the tool said ${text}` };
    if (text.startsWith('note:')) {
      const note = text.slice('note:'.length);
      return {
        content: '',
        toolCalls: [
          { id: `call_${note}`, name: 'write_note', arguments: JSON.stringify({ text: note }) },
        ],
      };
    }
    const gate = gates.get(text);
    const reply = { content: `answer to ${text}` };
    return gate ? { gate: gate.closed, reply } : reply;
  };
}
