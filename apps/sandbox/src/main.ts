import { join } from 'node:path';
import { StartupFailure } from './infrastructure/startup-failure';
import { loadSandboxConfig } from './sandbox.config';
import { SandboxLauncher } from './sandbox.launcher';
import { meaningOfSignal } from './signal-presses';

/** `npm start`: dist/apps/sandbox/main.js, three levels below the project root. */
const ROOT = join(__dirname, '..', '..', '..');

async function main(): Promise<void> {
  // A closed terminal (SIGHUP) still drains; what cannot be printed any more is dropped.
  process.stdout.on('error', () => undefined);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  let launcher: SandboxLauncher | undefined;
  let stopping = false;
  let firstSignalAt: number | undefined;
  const stop = (signal: NodeJS.Signals) => {
    const meaning = meaningOfSignal(firstSignalAt, Date.now());
    if (meaning === 'same press') return;
    if (meaning === 'kill') {
      print(`[tollgate] ${signal} again: killing the services instead of waiting for them`);
      void launcher?.killServices();
      return;
    }
    firstSignalAt = Date.now();
    if (stopping) return;
    stopping = true;
    void (launcher?.stop() ?? Promise.resolve()).then(
      () => process.exit(0),
      (error: unknown) => {
        print(`[tollgate] stopping failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);

  try {
    launcher = new SandboxLauncher(loadSandboxConfig(process.env, ROOT), print);
    await launcher.start();
  } catch (error) {
    if (error instanceof StartupFailure) print(`\n${error.message}\n`);
    else
      print(
        `[tollgate] could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    stopping = true;
    await launcher?.stop().catch(() => undefined);
    process.exit(1);
  }
}

void main();
