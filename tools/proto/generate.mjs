#!/usr/bin/env node
// Regenerates packages/api/src/gen from proto/ with buf and ts-proto (both npm packages: nothing is
// downloaded). `npm run generate` runs it; `--out DIR` writes the tree under DIR instead of the
// repository, which is how the drift test compares a fresh generation with the committed code.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const buf = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');
const outArgs = values.out === undefined ? [] : ['--output', resolve(values.out)];

execFileSync(process.execPath, [buf, 'generate', '--template', 'proto/buf.gen.yaml', ...outArgs], {
  cwd: root,
  stdio: 'inherit',
});
