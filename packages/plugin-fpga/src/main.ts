import { runFpgaCli } from './fpga-cli';

void runFpgaCli({ argv: process.argv.slice(2) }).then((code) => {
  process.exitCode = code;
});
