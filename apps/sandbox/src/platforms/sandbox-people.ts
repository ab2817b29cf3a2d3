import type { Platform } from '@tollgate/protocol';

export type PersonKey = 'alice' | 'bob';

export interface SandboxPerson {
  readonly key: PersonKey;
  readonly name: string;
  /** Their user id on each platform, in that platform's format. */
  readonly ids: Readonly<Record<Platform, string>>;
}

/** The two people of every sandbox conversation: both are members of each channel. */
export const PEOPLE: Readonly<Record<PersonKey, SandboxPerson>> = {
  alice: {
    key: 'alice',
    name: 'Alice',
    ids: {
      slack: 'U0ALICE',
      discord: '1410000000000000001',
      mattermost: 'alice000000000000000000000',
    },
  },
  bob: {
    key: 'bob',
    name: 'Bob',
    ids: {
      slack: 'U0BOB',
      discord: '1410000000000000002',
      mattermost: 'bob00000000000000000000000',
    },
  },
};

export function isPersonKey(value: unknown): value is PersonKey {
  return value === 'alice' || value === 'bob';
}

/** Who a platform user id is, when it is one of the sandbox's people. */
export function personById(platform: Platform, id: string): SandboxPerson | undefined {
  return Object.values(PEOPLE).find((person) => person.ids[platform] === id);
}
