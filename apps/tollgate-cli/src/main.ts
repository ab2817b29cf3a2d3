import { createInterface } from 'node:readline/promises';
import { runCli } from './cli.router';
import { StdoutLines } from './stdout-lines';

const stdout = new StdoutLines(process.stdout);

// The exit code is set, not exited with, so node flushes what stdout still queues first.
void runCli(process.argv.slice(2), process.env, {
  out: (line) => stdout.line(line),
  writable: () => stdout.writable(),
  err: (line) => console.error(line),
  async confirm(question) {
    if (!process.stdin.isTTY) return undefined;
    const terminal = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await terminal.question(`${question} [y/N] `)).trim());
    } finally {
      terminal.close();
    }
  },
}).then((code) => {
  process.exitCode = code;
});
