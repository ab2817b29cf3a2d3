import type { Platform } from '@tollgate/protocol';
import type { PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from './binding.fixture';
import { DecisionLog } from './decisions';
import { startJourneySystem, type JourneySystem } from './journey-system.fixture';
import type { SessionServiceFixture } from './session-service.fixture';

/** A journey system and the decision log approval-api would read, once the suite has started. */
export interface DecidingJourney {
  readonly driver: PlatformDriver;
  readonly session: SessionServiceFixture;
  readonly binding: BindingFixture;
  /** `<PREFIX>_DECISION`, read as approval-api reads it. */
  readonly decisions: DecisionLog;
}

/**
 * Starts a whole journey system through `platform` before the enclosing `describe`'s tests and
 * stops it after them, with the decision log open: what the API journeys (whose commands are
 * published as approval-api's NATS user would) all need. Its fields are read inside tests only,
 * once `beforeAll` has run.
 */
export function decidingJourney(platform: Platform, tag: string): DecidingJourney {
  let system: JourneySystem | undefined;
  let decisions: DecisionLog | undefined;
  beforeAll(async () => {
    system = await startJourneySystem(platform, tag);
    decisions = await DecisionLog.open(system.session.nc, system.session.prefix);
  });
  afterAll(async () => {
    await decisions?.close();
    await system?.dispose();
  });
  const started = (): JourneySystem => {
    if (!system) throw new Error('the journey system is read before beforeAll started it');
    return system;
  };
  return {
    get driver() {
      return started().driver;
    },
    get session() {
      return started().session;
    },
    get binding() {
      return started().binding;
    },
    get decisions() {
      if (!decisions) throw new Error('the decision log is read before beforeAll opened it');
      return decisions;
    },
  };
}
