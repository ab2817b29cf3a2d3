import { DELEGATE_TOOL } from '../session/domain/sub-agent';
import type { Tool } from './tool';

/**
 * Listed like any tool, so a policy gates it and the model is told of it; its run is the
 * turn runner's, which starts a child session instead (sub-agent.ts), so `run` is never
 * called and refuses to pretend otherwise.
 */
export const delegateTool: Tool = {
  name: DELEGATE_TOOL,
  description:
    "Starts a sub-agent on `task` (its first message); `tools` optionally limits the tools it may use. Its final reply is this call's result.",
  describe: (args) => {
    const name = typeof args.name === 'string' ? args.name : 'helper';
    const tools = Array.isArray(args.tools) ? ` with ${JSON.stringify(args.tools)}` : '';
    return `Delegate to sub-agent ${name}${tools}: ${JSON.stringify(args.task ?? '')}`;
  },
  run() {
    return Promise.reject(new Error('delegate runs as a sub-agent session, not as a tool'));
  },
};
