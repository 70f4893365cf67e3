import { exitWhenFlushed } from '@kdp/base';
import { runDeviceMonitor } from './run-device-monitor';

const controller = new AbortController();
// `on`, not `once`: a second SIGTERM during shutdown must not kill the monitor by signal.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => controller.abort());

// Exit as soon as the run is over (once stdout and stderr are flushed): a natural exit restores the signals'
// default action before the process is gone, so a late SIGTERM would still kill it by signal.
runDeviceMonitor(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  signal: controller.signal,
}).then(
  (code) => exitWhenFlushed(code),
  (error: unknown) => {
    process.stderr.write(`device-monitor: ${String(error)}\n`);
    return exitWhenFlushed(1);
  },
);
