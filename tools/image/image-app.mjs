#!/usr/bin/env node
// Writes what an image holds in /app for a bundle, for the host's architecture, into a directory of this
// workspace: main.js (app-main.cjs), bundle.js and bundle.cache made by the given Node (the images' own, from
// runtime-node.mjs) with the images' environment. The benches start a plugin from there, as its image does;
// inside the workspace, its native addons resolve from node_modules as the image's do from /app/node_modules.
//
//   node tools/image/image-app.mjs --node PATH BUNDLE OUT_DIR
//
// Exit codes: 0 written, 2 usage error, 1 anything else.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleBody, produceCodeCache } from './lib/code-cache.mjs';

async function main(argv) {
  const usage = 'usage: image-app --node PATH BUNDLE OUT_DIR';
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { node: { type: 'string' } }, allowPositionals: true });
  } catch (error) {
    console.error(`image-app: ${error.message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.node === undefined || positionals.length !== 2) {
    console.error(usage);
    return 2;
  }
  const [bundle, out] = positionals;
  const body = bundleBody(readFileSync(bundle));
  mkdirSync(out, { recursive: true });
  copyFileSync(join(import.meta.dirname, 'lib/app-main.cjs'), join(out, 'main.js'));
  writeFileSync(join(out, 'bundle.js'), body);
  writeFileSync(join(out, 'bundle.cache'), await produceCodeCache([values.node, []], body));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`image-app: ${error.message}`);
    process.exit(1);
  },
);
