import { runCli } from './cli.router';

// Output goes through console so it is flushed before node exits with the code.
void runCli(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
}).then((code) => {
  process.exitCode = code;
});
