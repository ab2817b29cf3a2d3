import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { ApprovalClient } from '@tollgate/approval-clients';
import type { Request } from 'express';
import { unauthorized } from '../http/api-error';
import { ClientAuthenticator } from './client-authenticator';

export type AuthenticatedRequest = Request & { client: ApprovalClient };

/** Every API route: the same 401 for a missing, malformed, unknown, revoked or wrong key. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly authenticator: ClientAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const client = await this.authenticator.authenticate(req.headers.authorization);
    if (client === undefined) throw unauthorized();
    req.client = client;
    return true;
  }
}
