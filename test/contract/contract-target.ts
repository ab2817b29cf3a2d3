import { isPlatform, type Platform } from '@tollgate/protocol';
import type { ExternalBindingTarget } from '../support/binding.fixture';

/**
 * The contract suite's external mode: run it against a binding an engineer started by hand
 * (docs/contract.md). The suite still starts the
 * platform's fake, on a fixed port the binding's API URL points at, and still publishes the
 * outputs and reads the journal; it only never starts, stops or cleans up that binding.
 */
export interface ExternalContractTarget extends ExternalBindingTarget {
  readonly platform: Platform;
  /** Where the suite starts the platform's fake. */
  readonly fakePort: number;
}

export const CONTRACT_ENV = {
  bindingUrl: 'TOLLGATE_CONTRACT_BINDING_URL',
  prefix: 'TOLLGATE_CONTRACT_PREFIX',
  schema: 'TOLLGATE_CONTRACT_DATABASE_SCHEMA',
  platform: 'TOLLGATE_CONTRACT_PLATFORM',
  fakePort: 'TOLLGATE_CONTRACT_FAKE_PORT',
} as const;

export const DEFAULT_CONTRACT_FAKE_PORT = 4599;

/** Undefined unless TOLLGATE_CONTRACT_BINDING_URL is set; then every other variable is checked. */
export function externalContractTarget(
  env: NodeJS.ProcessEnv = process.env,
): ExternalContractTarget | undefined {
  const url = env[CONTRACT_ENV.bindingUrl];
  if (url === undefined || url === '') return undefined;
  const required = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '') {
      throw new Error(`${name} is required when ${CONTRACT_ENV.bindingUrl} is set`);
    }
    return value;
  };
  const platform = env[CONTRACT_ENV.platform] || 'slack';
  if (!isPlatform(platform)) {
    throw new Error(`${CONTRACT_ENV.platform} must be slack, discord or mattermost`);
  }
  const port = Number(env[CONTRACT_ENV.fakePort] || DEFAULT_CONTRACT_FAKE_PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`${CONTRACT_ENV.fakePort} must be a TCP port`);
  }
  return {
    url,
    prefix: required(CONTRACT_ENV.prefix),
    schema: required(CONTRACT_ENV.schema),
    platform,
    fakePort: port,
  };
}
