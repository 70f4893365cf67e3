import { runSriovCli } from './run-sriov-cli';

runSriovCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`sriov-device-plugin: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
