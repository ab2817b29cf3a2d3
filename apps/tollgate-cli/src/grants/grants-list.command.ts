import { type CliCommand, EXIT } from '../cli-command';
import {
  describeFilter,
  GRANT_FILTER_HELP,
  GRANT_FILTER_OPTIONS,
  GRANT_FILTER_USAGE,
  grantFilterOf,
} from './grant-filter.options';
import { grantCount, grantJson, grantLine } from './grant.formatter';

export const GRANTS_LIST: CliCommand = {
  path: ['grants', 'list'],
  summary: 'show the grants in force: "Always allow" and "Allow in this chat"',
  usage: `${GRANT_FILTER_USAGE} [--json]`,
  help: [
    'Shows the grants in force. Each belongs to one person: "Always allow" covers that',
    'person and one tool on one platform and workspace; "Allow in this chat" (kind=session)',
    'that person and tool in one session until it expires (TOLLGATE_SESSION_GRANT_TTL).',
    'An "Always allow" the tool\'s policy limited (G3) also shows scope=<the arguments it',
    'covers, as JSON>, uses=<left>/<given> and expires=<instant>; one that lapsed or ran',
    'out is no longer listed (it covers nothing).',
    'Filters narrow the list; none shows all.',
    '',
    'Options:',
    GRANT_FILTER_HELP,
    '  --json          one JSON object per grant and line, nothing else',
    '  -h, --help      this text',
  ].join('\n'),
  options: { ...GRANT_FILTER_OPTIONS, json: { type: 'boolean' } },

  async run(values, { io, sessionDatabase }) {
    const filter = grantFilterOf(values);
    const grants = await (await sessionDatabase()).grants.list(filter);
    if (values.json === true) {
      for (const grant of grants) io.out(grantJson(grant));
      return EXIT.ok;
    }
    if (grants.length === 0) {
      io.out(`no grant matched ${describeFilter(filter)}`);
      return EXIT.ok;
    }
    for (const grant of grants) io.out(grantLine(grant));
    io.out(`${grantCount(grants.length)} matched ${describeFilter(filter)}`);
    return EXIT.ok;
  },
};
