import { type GrantOffer, scopeToJson } from '@tollgate/protocol';
import type { JournaledGrantOffer } from '@tollgate/session-read-model';

// G3's offer is read at two boundaries (the policy file here, an API request in approval-api):
// it lives in @tollgate/protocol, and this file keeps what only the session journals.
export {
  type GrantOffer,
  type GrantOfferInput,
  grantOfferOf,
  grantOfferSchema,
  MAX_GRANT_USES,
} from '@tollgate/protocol';

export function journaledOffer(offer: GrantOffer): JournaledGrantOffer {
  return {
    ...(offer.scope ? { scope: scopeToJson(offer.scope) } : {}),
    ...(offer.ttlMs === undefined ? {} : { ttlMs: offer.ttlMs }),
    ...(offer.uses === undefined ? {} : { uses: offer.uses }),
  };
}
