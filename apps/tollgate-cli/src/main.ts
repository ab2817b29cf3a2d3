import { createInterface } from 'node:readline/promises';
import { runCli } from './cli.router';

// Output goes through console so it is flushed before node exits with the code.
void runCli(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
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
