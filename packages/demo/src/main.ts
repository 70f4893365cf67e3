import { join } from 'node:path';
import { runDemo } from './run-demo';

// The bundle lies in packages/demo/dist/main.js; the plugin bundles in packages/plugin-<name>/dist/main.js.
void runDemo(process.argv.slice(2), {
  write: (text) => process.stdout.write(text),
  writeError: (text) => process.stderr.write(text),
  tty: process.stdout.isTTY === true,
  columns: () => process.stdout.columns,
  packagesDir: join(__dirname, '..', '..'),
}).then((code) => {
  process.exitCode = code;
});
