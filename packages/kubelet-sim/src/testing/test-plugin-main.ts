// A test plugin as its own process, for checks that need a PID (SIGTERM). Usage: node test-plugin.js '<json>'
// where the JSON is TestPluginOptions plus `keepSocketOnSigterm` (exit without unlinking: a broken plugin) and
// `flipFirstAfterMs` (mark the first device unhealthy after that long, to show a health change).
import { Unhealthy } from '@kdp/api';
import { createTestPlugin, defaultTestDevices, type TestPluginOptions } from './test-plugin';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as TestPluginOptions & {
    keepSocketOnSigterm?: boolean;
    flipFirstAfterMs?: number;
  };
  const plugin = await createTestPlugin(options);
  if (options.flipFirstAfterMs !== undefined) {
    const devices = options.devices ?? defaultTestDevices();
    setTimeout(
      () => plugin.setDevices(devices.map((d, i) => (i === 0 ? { ...d, health: Unhealthy } : d))),
      options.flipFirstAfterMs,
    );
  }
  process.on('SIGTERM', () => {
    if (options.keepSocketOnSigterm) process.exit(0);
    void plugin.stop().then(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ ready: true, socket: plugin.socketPath })}\n`);
}

void main();
