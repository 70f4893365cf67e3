// `npx nx run core:bench`: bundles the benchmark and the sample plugin with esbuild, then runs the benchmark,
// which hosts kubelet-sim in its own process and the plugin in a child process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'kdp-bench-'));
const bundle = (entry, outfile) =>
  build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['@kdp/source'],
    outfile,
    logLevel: 'warning',
  });
try {
  await bundle(join(here, 'bench.ts'), join(out, 'bench.js'));
  await bundle(join(here, '../src/sample-plugin.fixture.ts'), join(out, 'sample-plugin.js'));
  const result = spawnSync(process.execPath, [join(out, 'bench.js'), join(out, 'sample-plugin.js')], {
    stdio: 'inherit',
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
