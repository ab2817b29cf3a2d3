/** Tools of every upstream share one namespace: `<server>__<tool>`. */
export const TOOL_SEPARATOR = '__';

/** A server name cannot hold the separator, so the first `__` always splits a listed name. */
export const SERVER_NAME = /^(?!.*__)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function listedToolName(server: string, tool: string): string {
  return `${server}${TOOL_SEPARATOR}${tool}`;
}

export function splitToolName(listed: string): { server: string; tool: string } | undefined {
  const at = listed.indexOf(TOOL_SEPARATOR);
  if (at <= 0) return undefined;
  const tool = listed.slice(at + TOOL_SEPARATOR.length);
  if (tool === '') return undefined;
  return { server: listed.slice(0, at), tool };
}
