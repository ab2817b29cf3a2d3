import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Platform } from '@tollgate/protocol';
import { RealSandboxPlatform } from './platforms/real.sandbox-platform';
import type { SandboxPlatform } from './platforms/sandbox-platform.port';

/**
 * Why this file exists: the stand-ins' conversations outlive a stop, so the next `npm start`
 * shows where the newcomer left off. What is kept, where, with which permissions, and what
 * a file from another version or a torn write means, is this store's alone.
 */

const STATE_VERSION = 1;

export interface SavedState {
  readonly version: number;
  readonly platforms: Partial<Record<Platform, unknown>>;
}

function statePath(dataDir: string): string {
  return join(dataDir, 'sandbox-state.bin');
}

/** The last run's state; undefined when there is none, or none this version can read. */
export async function loadSandboxState(
  dataDir: string,
  progress: (line: string) => void,
): Promise<SavedState | undefined> {
  const bytes = await readFile(statePath(dataDir)).catch(() => undefined);
  if (!bytes) return undefined;
  try {
    const state = deserialize(bytes) as SavedState;
    return state.version === STATE_VERSION ? state : undefined;
  } catch {
    progress('the conversations kept by the last run could not be read; starting afresh');
    return undefined;
  }
}

/**
 * The stand-ins' conversations (and Mattermost's action secret): owner-only, and written
 * aside then renamed, so a stop cut short never leaves half a file.
 */
export async function saveSandboxState(
  dataDir: string,
  platforms: ReadonlyMap<Platform, SandboxPlatform>,
): Promise<void> {
  const state: SavedState = {
    version: STATE_VERSION,
    platforms: Object.fromEntries(
      [...platforms]
        .filter(([, p]) => !(p instanceof RealSandboxPlatform))
        .map(([k, p]) => [k, p.snapshot()]),
    ),
  };
  const path = statePath(dataDir);
  const temporary = `${path}.${process.pid}`;
  await writeFile(temporary, serialize(state), { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
