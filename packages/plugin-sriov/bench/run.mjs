// Bundles bench/scan-bench.ts in memory with esbuild (sources resolved through the @kdp/source condition) and
// runs the bundle from node's standard input: nothing is written to disk.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const { outputFiles } = await build({
  entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'scan-bench.ts')],
  bundle: true,
  write: false,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  conditions: ['@kdp/source'],
  logLevel: 'warning',
});
execFileSync(process.execPath, ['-'], { input: outputFiles[0].text, stdio: ['pipe', 'inherit', 'inherit'] });
