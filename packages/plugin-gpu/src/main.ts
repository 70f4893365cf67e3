import { runGpuCli } from './gpu-cli';

void runGpuCli({ argv: process.argv.slice(2) }).then((code) => {
  process.exitCode = code;
});
