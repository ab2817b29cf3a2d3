import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { nextStep, stillPendingText } from '../../apps/mcp-gateway/src/approval/held-call.decider';
import { loadGatewayConfig } from '../../apps/mcp-gateway/src/gateway.config';
import { UpstreamCallError } from '@tollgate/mcp-upstream';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'integrations', 'mcp.md'), 'utf8');
/** The doc's prose with its line breaks undone, so quoted answers can be found whole. */
const prose = doc.replace(/\s+/g, ' ');
const blocks = (lang: string) =>
  [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

/** docs/integrations/mcp.md is the gateway's user contract: its examples and quotes are the code's. */
describe('M6 — docs/integrations/mcp.md agrees with the gateway', () => {
  it('M6 its config example loads as a gateway config', () => {
    const [yaml] = blocks('yaml');
    const file = join(mkdtempSync(join(tmpdir(), 'tollgate-doc-')), 'gateway.yaml');
    writeFileSync(file, yaml);
    const config = loadGatewayConfig(file, { TOLLGATE_API_KEY: 'tg_x', TICKETS_TOKEN: 't' });
    expect([...config.servers.keys()]).toEqual(['fs', 'tickets']);
    expect(config.policy).toEqual({
      default: 'ask',
      readOnly: 'allow',
      tools: { fs__write_file: 'ask', fs__move_file: 'deny' },
    });
    expect(config.holdSeconds).toBe(50);
  });

  it('M6 its client configs start the built gateway over stdio or reach /mcp', () => {
    const json = blocks('json').map(
      (text) => JSON.parse(text) as { mcpServers: Record<string, unknown> },
    );
    expect(json.length).toBeGreaterThanOrEqual(2);
    const servers = json.map((j) => j.mcpServers.tollgate);
    expect(servers).toContainEqual(
      expect.objectContaining({
        args: [
          expect.stringMatching(/dist\/apps\/mcp-gateway\/main\.js$/),
          '--stdio',
          '--config',
          expect.any(String),
        ],
      }),
    );
    expect(servers).toContainEqual({ url: 'http://127.0.0.1:3005/mcp' });
  });

  it('M6 the answers it quotes are the ones the gateway gives', () => {
    const approval = {
      id: 'apr_…',
      status: 'pending' as const,
      tool: 'fs__write_file',
      argumentsHash: 'sha256:0',
      decision: null,
      redeemedAt: null,
    };
    expect(prose).toContain(stillPendingText(approval, 50));
    const denied = nextStep(
      {
        ...approval,
        status: 'denied',
        decision: {
          option: 'deny',
          by: { platform: 'slack', id: 'U1', displayName: 'Alice' },
          via: 'click',
          reason: 'not on production',
        },
      },
      false,
    );
    expect(denied.kind === 'refuse' && prose.includes(denied.text)).toBe(true);
    expect(prose).toContain(
      new UpstreamCallError('fs', 'unavailable', 'failed to start: the server process exited')
        .message,
    );
    expect(prose).toContain(
      "Tool fs__move_file is denied by the gateway's policy; it did not run.",
    );
  });
});
