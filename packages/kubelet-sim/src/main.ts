// The `kubelet-sim` binary: a simulated kubelet (`serve`), the DRA playground (`serve --dra`) and the conformance
// suites (`check`).
import { exitWhenFlushed } from '@kdp/base';
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
  // gRPC may keep idle channels around; the work is done once what was printed reached the reader.
  (code) => exitWhenFlushed(code),
  (err: unknown) => {
    process.stderr.write(`kubelet-sim: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return exitWhenFlushed(1);
  },
);
