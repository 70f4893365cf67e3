// The `kubelet-sim` binary: a simulated kubelet (`serve`) and the device-plugin conformance suite (`check`).
import packageJson from '../package.json';
import { runCli } from './cli/run-cli';

const controller = new AbortController();
// `on`, not `once`: a second signal during shutdown must not kill it by signal.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => controller.abort());

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
  version: packageJson.version,
}).then(
  (code) => {
    process.exitCode = code;
    // gRPC may keep idle channels around for a moment; the work is done.
    setTimeout(() => process.exit(code), 100).unref();
  },
  (err: unknown) => {
    process.stderr.write(`kubelet-sim: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
