import { type Tool, ToolArgumentError } from './tool';

export const echoTool: Tool = {
  name: 'echo',
  description: 'Returns its `text` argument.',
  describe: (args) => `echo ${JSON.stringify(args.text ?? '')}`,
  async run(args) {
    if (typeof args.text !== 'string') throw new ToolArgumentError('echo needs a string `text`');
    return { result: args.text };
  },
};
