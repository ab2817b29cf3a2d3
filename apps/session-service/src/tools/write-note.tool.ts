import { type Tool, ToolArgumentError } from './tool';

/** Stores its text in the session's notes; the notes live in the journal, not in memory. */
export const writeNoteTool: Tool = {
  name: 'write_note',
  description: "Stores `text` in the session's notes and returns how many notes it now holds.",
  describe: (args) => `Write a note: ${JSON.stringify(args.text ?? '')}`,
  async run(args, context) {
    if (typeof args.text !== 'string')
      throw new ToolArgumentError('write_note needs a string `text`');
    return { result: String(context.noteCount + 1), note: args.text };
  },
};
