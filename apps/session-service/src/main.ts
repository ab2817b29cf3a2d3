import { bootstrapService } from '@tollgate/service-runtime';
import { SessionServiceModule } from './session-service.module';
import { loadSessionServiceConfig } from './session-service.config';
import { withMcpTools } from './tools/mcp-tool.registry';
import { withMcpServers } from './tools/mcp-servers.loader';
import { withToolPolicy } from './tools/tool-policy.loader';
import { builtInTools } from './tools/tool-registry';

void bootstrapService({
  service: 'session-service',
  // The policy file is read with the environment: a bad one stops the start naming its line.
  // MCP servers are named before they run: the policy may name their tools by server.
  loadConfig: async (env) => {
    const config = await withMcpServers(loadSessionServiceConfig(env), env);
    const servers = [...config.mcpServers.servers.keys()];
    return withToolPolicy(config, withMcpTools(builtInTools(), servers, undefined));
  },
  rootModule: (config, logger) => SessionServiceModule.forRoot(config, logger),
});
