import type { ProviderMessage, ToolCall } from '@tollgate/session-read-model';
import type { ModelClient, ModelReply, ModelRequest } from './model-client.port';

const TOOL_LINE = /^!(\S+)\s+(.*)$/;

interface ParsedMessage {
  readonly calls: readonly { toolName: string; arguments: string }[];
  readonly unparsable: readonly string[];
}

/** docs/protocol.md §6: each `!<tool> <JSON object>` line of a user message is one call. */
export function parseScriptedMessage(text: string): ParsedMessage {
  const calls: { toolName: string; arguments: string }[] = [];
  const unparsable: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = TOOL_LINE.exec(line.trim());
    if (!match) continue;
    const [, toolName, json] = match as unknown as [string, string, string];
    if (isJsonObject(json)) calls.push({ toolName, arguments: json.trim() });
    else unparsable.push(toolName);
  }
  return { calls, unparsable };
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The deterministic model of docs/protocol.md §6. It reads only the history it is given, so a
 * redrive months later in another process answers exactly as the first process would have.
 */
export class ScriptedModelClient implements ModelClient {
  async complete(request: ModelRequest): Promise<ModelReply> {
    const last = request.messages.at(-1);
    if (!last) return { content: '', toolCalls: [] };
    if (last.role === 'tool') return { content: summarizeBatch(request.messages), toolCalls: [] };
    const userText = last.role === 'user' ? last.content : '';
    const parsed = parseScriptedMessage(userText);
    if (parsed.calls.length === 0) {
      return {
        content:
          parsed.unparsable.length > 0 ? cannotParse(parsed.unparsable) : `You said: ${userText}`,
        toolCalls: [],
      };
    }
    const toolCalls: ToolCall[] = parsed.calls.map((call, index) => ({
      callId: `call_${request.turnSeq}_${index + 1}`,
      toolName: call.toolName,
      arguments: call.arguments,
    }));
    return { content: '', toolCalls };
  }
}

function cannotParse(toolNames: readonly string[]): string {
  return toolNames.map((name) => `cannot parse arguments for ${name}`).join('\n');
}

/** One line per call of the last batch, in batch order: `<toolName>: <result>`. */
function summarizeBatch(messages: readonly ProviderMessage[]): string {
  const assistantIndex = messages.findLastIndex((m) => m.role === 'assistant' && m.toolCalls);
  const assistant = messages[assistantIndex];
  if (!assistant || assistant.role !== 'assistant' || !assistant.toolCalls) return '';
  const results = new Map<string, string>();
  for (const message of messages.slice(assistantIndex + 1)) {
    if (message.role === 'tool') results.set(message.callId, message.content);
  }
  const lines = assistant.toolCalls.map(
    (call) => `${call.toolName}: ${results.get(call.callId) ?? 'no result'}`,
  );
  const user = messages.slice(0, assistantIndex).findLast((m) => m.role === 'user');
  const unparsable = user?.role === 'user' ? parseScriptedMessage(user.content).unparsable : [];
  return [...lines, ...(unparsable.length > 0 ? [cannotParse(unparsable)] : [])].join('\n');
}
