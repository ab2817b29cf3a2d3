import { bootstrapService } from '@tollgate/service-runtime';
import { ApprovalApiModule } from './approval-api.module';
import { loadApprovalApiConfig } from './approval-api.config';

/** The approval API's body limit (docs/protocol.md): 256 KiB. */
const BODY_LIMIT_BYTES = 256 * 1024;

void bootstrapService({
  service: 'approval-api',
  loadConfig: loadApprovalApiConfig,
  inboundEndpoints: ['/v1/approvals', '/v1/hooks/claude-code', '/v1/hooks/codex'],
  inboundBody: {
    limitBytes: BODY_LIMIT_BYTES,
    refusalBody: (reason) => ({ error: reason, message: refusalMessage(reason) }),
  },
  rootModule: (config, logger) => ApprovalApiModule.forRoot(config, logger),
});

function refusalMessage(reason: string): string {
  return reason === 'body_too_large'
    ? `the body is over ${BODY_LIMIT_BYTES} bytes`
    : 'the body is not readable JSON';
}
