// A test plugin as its own process, for checks that need a PID (SIGTERM). Usage: node test-plugin.js '<json>'
// where the JSON is TestPluginOptions plus `keepSocketOnSigterm` (exit without unlinking: a broken plugin).
import { createTestPlugin, type TestPluginOptions } from './test-plugin';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as TestPluginOptions & {
    keepSocketOnSigterm?: boolean;
  };
  const plugin = await createTestPlugin(options);
  process.on('SIGTERM', () => {
    if (options.keepSocketOnSigterm) process.exit(0);
    void plugin.stop().then(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ ready: true, socket: plugin.socketPath })}\n`);
}

void main();
