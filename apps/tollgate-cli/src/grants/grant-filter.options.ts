import { PLATFORMS } from '@tollgate/protocol';
import type { GrantFilter } from '@tollgate/session-read-model';
import { type CliOptions, type OptionValues, UsageError } from '../cli-command';
import { field } from './grant.formatter';

/** The keys a grant is found by; `grants list` and `grants revoke` share them. */
export const GRANT_FILTER_OPTIONS: CliOptions = {
  platform: { type: 'string' },
  workspace: { type: 'string' },
  person: { type: 'string' },
  tool: { type: 'string' },
  client: { type: 'string' },
};

export const GRANT_FILTER_USAGE =
  '[--platform P] [--workspace W] [--person ID] [--tool NAME] [--client ID]';

export const GRANT_FILTER_HELP = [
  `  --platform P    ${PLATFORMS.join(', ')}`,
  '  --workspace W   the workspace id: Slack team, Discord guild, Mattermost team;',
  '                  --workspace= (empty) for Discord DMs',
  "  --person ID     the person's user id on that platform",
  '  --tool NAME     the tool, e.g. write_note',
  "  --client ID     an approval API client's id (its grants cover only its requests);",
  '                  --client= (empty) for grants given in chat',
].join('\n');

export function grantFilterOf(values: OptionValues): GrantFilter {
  const platform = stringOf(values, 'platform');
  if (platform !== undefined && !(PLATFORMS as readonly string[]).includes(platform)) {
    throw new UsageError(`--platform must be one of ${PLATFORMS.join(', ')}`);
  }
  const personId = stringOf(values, 'person');
  const toolName = stringOf(values, 'tool');
  // Only the workspace may be empty: that is how Discord DMs are keyed.
  if (personId === '') throw new UsageError('--person must not be empty');
  if (toolName === '') throw new UsageError('--tool must not be empty');
  return {
    ...(platform === undefined ? {} : { platform }),
    ...(values.workspace === undefined ? {} : { workspaceId: stringOf(values, 'workspace') }),
    ...(personId === undefined ? {} : { personId }),
    ...(toolName === undefined ? {} : { toolName }),
    ...(values.client === undefined ? {} : { clientId: stringOf(values, 'client') }),
  };
}

export function isEmptyFilter(filter: GrantFilter): boolean {
  return Object.keys(filter).length === 0;
}

/** The filter as the operator would type it, for "no grant matched …". */
export function describeFilter(filter: GrantFilter): string {
  if (isEmptyFilter(filter)) return 'any grant';
  return [
    filter.platform === undefined ? undefined : field('platform', filter.platform),
    filter.workspaceId === undefined ? undefined : field('workspace', filter.workspaceId),
    filter.personId === undefined ? undefined : field('person', filter.personId),
    filter.toolName === undefined ? undefined : field('tool', filter.toolName),
    filter.clientId === undefined ? undefined : field('client', filter.clientId),
  ]
    .filter((part) => part !== undefined)
    .join(' ');
}

function stringOf(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}
