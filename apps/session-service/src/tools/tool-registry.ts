import { delegateTool } from './delegate.tool';
import { echoTool } from './echo.tool';
import type { Tool } from './tool';
import { writeNoteTool } from './write-note.tool';

export interface ToolRegistry {
  get(name: string): Tool | undefined;
  list(): readonly Tool[];
  /**
   * Whether `name` is `<server>__<tool>` of a configured MCP server: its tools are known only
   * once the server runs, so the policy file may name them before they are listed.
   */
  isMcpTool?(name: string): boolean;
}

export function builtInTools(): ToolRegistry {
  const tools = new Map<string, Tool>(
    [echoTool, writeNoteTool, delegateTool].map((t) => [t.name, t]),
  );
  return { get: (name) => tools.get(name), list: () => [...tools.values()] };
}

export const TOOL_REGISTRY = Symbol('TOOL_REGISTRY');
export const TOOL_POLICY = Symbol('TOOL_POLICY');
