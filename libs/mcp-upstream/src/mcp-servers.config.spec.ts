import { ConfigError } from '@tollgate/service-runtime';
import { parseServersBlock } from './mcp-servers.config';

describe('M1 — parseServersBlock', () => {
  it('reads stdio and streamable HTTP servers, expanding ${VAR} after parsing', () => {
    const config = parseServersBlock(
      {
        fs: { command: 'npx', args: ['-y', 'server', '${ROOT}'] },
        tickets: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${T}' } },
      },
      { ROOT: '/srv/work', T: 'x"y: z' },
    );
    expect(config.servers.get('fs')).toEqual({
      kind: 'stdio',
      command: 'npx',
      args: ['-y', 'server', '/srv/work'],
      env: {},
    });
    expect(config.servers.get('tickets')).toEqual({
      kind: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer x"y: z' },
    });
    expect(config.secrets).toEqual(expect.arrayContaining(['/srv/work', 'x"y: z']));
  });

  it('names every problem by server and field, never echoing a value', () => {
    let thrown: unknown;
    try {
      parseServersBlock(
        {
          a__b: { command: 'x' },
          bad: { url: 'ftp://h', headers: { A: '${NOPE}' } },
          empty: {},
          odd: { command: 'x', extra: true },
        },
        {},
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems.map((p) => p.variable);
    expect(problems).toEqual(
      expect.arrayContaining([
        'servers.a__b',
        'servers.bad ${NOPE}',
        'servers.bad.url',
        'servers.empty.command',
        'servers.odd',
      ]),
    );
  });

  it('takes an absent block as no servers', () => {
    expect(parseServersBlock(undefined, {}).servers.size).toBe(0);
  });
});
