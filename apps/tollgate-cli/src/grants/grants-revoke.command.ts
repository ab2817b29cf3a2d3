import { userInfo } from 'node:os';
import type { AuditWho } from '@tollgate/audit';
import { type CliCommand, EXIT, UsageError } from '../cli-command';
import {
  describeFilter,
  GRANT_FILTER_HELP,
  GRANT_FILTER_OPTIONS,
  GRANT_FILTER_USAGE,
  grantFilterOf,
  isEmptyFilter,
} from './grant-filter.options';
import { grantCount, grantLine } from './grant.formatter';

export const GRANTS_REVOKE: CliCommand = {
  path: ['grants', 'revoke'],
  summary: 'revoke grants: "Always allow" and "Allow in this chat"',
  usage: `${GRANT_FILTER_USAGE} | --all`,
  help: [
    'Revokes every grant in force ("Always allow" and "Allow in this chat") that matches all',
    'the given filters. The person is asked again the next time; an answer they give after',
    'this grants anew. The',
    'revocation is kept, so nothing that replays earlier answers brings a grant back.',
    'With no filter it refuses, unless --all says every grant is meant.',
    '',
    'Options:',
    GRANT_FILTER_HELP,
    '  --all           revoke every grant in force (only needed with no filter)',
    '  -h, --help      this text',
    '',
    'Exits 0 also when no grant matched: there is then none in force to revoke.',
  ].join('\n'),
  options: { ...GRANT_FILTER_OPTIONS, all: { type: 'boolean' } },

  async run(values, { io, sessionDatabase }) {
    const filter = grantFilterOf(values);
    if (isEmptyFilter(filter) && values.all !== true) {
      throw new UsageError(
        'refusing to revoke every grant: name a --platform, --workspace, --person or --tool, or pass --all',
      );
    }
    // G4: the audit trail names who revoked: the operator's account on this machine.
    const revoked = await (await sessionDatabase()).grants.revoke(filter, operator());
    if (revoked.length === 0) {
      io.out(`no grant matched ${describeFilter(filter)}; nothing revoked`);
      return EXIT.ok;
    }
    io.out(`revoked ${grantCount(revoked.length)}:`);
    for (const grant of revoked) io.out(`  ${grantLine(grant)}`);
    return EXIT.ok;
  },
};

function operator(): AuditWho {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER ?? 'unknown';
  }
  return { id: name, platform: 'operator' };
}
