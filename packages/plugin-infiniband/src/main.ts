import { runInfinibandCli } from './infiniband-cli';

runInfinibandCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`infiniband-device-plugin: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
