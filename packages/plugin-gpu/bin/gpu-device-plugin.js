#!/usr/bin/env node
// Committed entry point, so that `npm ci` links `gpu-device-plugin` into node_modules/.bin (npm skips bin
// links whose target is missing, and dist/ only exists after `nx run @kdp/plugin-gpu:build`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const bundle = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(bundle)) {
  process.stderr.write('gpu-device-plugin: not built yet; run `npx nx run @kdp/plugin-gpu:build` first\n');
  process.exit(1);
}
require(bundle);
