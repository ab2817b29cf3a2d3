import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The sandbox's agent does real work: the published filesystem MCP server runs for the
 * session service on `<data dir>/workspace`, its tools gated like the built-in ones — writes
 * ask first, reads and listings run at once. A `TOLLGATE_MCP_SERVERS_FILE` or
 * `TOOL_POLICY_FILE` of your own replaces the sandbox's.
 */
export async function prepareWorkspace(
  root: string,
  dataDir: string,
  workspaceDir: string,
): Promise<Record<string, string>> {
  await mkdir(workspaceDir, { recursive: true });
  const servers = join(dataDir, 'mcp-servers.yaml');
  const server = join(
    root,
    'node_modules',
    '@modelcontextprotocol',
    'server-filesystem',
    'dist',
    'index.js',
  );
  await writeFile(
    servers,
    `servers:\n  fs: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}, ${JSON.stringify(workspaceDir)}] }\n`,
  );
  const policy = join(dataDir, 'tool-policy.yaml');
  await writeFile(policy, sandboxPolicy(resolve(workspaceDir)));
  return { TOLLGATE_MCP_SERVERS_FILE: servers, TOOL_POLICY_FILE: policy };
}

/**
 * G2: a new folder's path is editable within the workspace, so the prompt offers "Edit &
 * approve" and an approver may narrow where it goes (a folder under the one asked for).
 */
function sandboxPolicy(workspaceDir: string): string {
  return `# Written by npm start: the built-in tools as by default, the workspace's writes ask first.
tools:
  echo: { mode: auto }
  write_note: { mode: approval }
  delegate: { mode: approval }
  fs__write_file: { mode: approval }
  fs__edit_file: { mode: approval }
  fs__create_directory:
    mode: approval
    editable:
      path: { prefix: ${JSON.stringify(workspaceDir)} }
  fs__move_file: { mode: approval }
  fs__read_text_file: { mode: auto }
  fs__read_multiple_files: { mode: auto }
  fs__list_directory: { mode: auto }
  fs__directory_tree: { mode: auto }
  fs__search_files: { mode: auto }
  fs__get_file_info: { mode: auto }
`;
}

/** The workspace's file names, sorted; none while it does not exist. */
export function workspaceFiles(workspaceDir: string): string[] {
  try {
    return readdirSync(workspaceDir).sort();
  } catch {
    return [];
  }
}
